//! The `.fmu` archive.
//!
//! Layout (shared `fmi2-notes.md` §2, `fmi3-notes.md` §1.2): `modelDescription.xml`
//! at the root, `binaries/linux64/<modelIdentifier>.so` (FMI 3.0:
//! `binaries/x86_64-linux/`; FMI 2.0 also `binaries/win64/<modelIdentifier>.dll`
//! when the tool has a win64 runtime), and `resources/model.json`, the
//! validated model the binary was compiled from (or, for the prebuilt runtime,
//! reads at instantiation), which lets `lcsfmu simulate`
//! run an FMU it is given with the same core, and `documentation/index.html`, the
//! entry point FMI 2.0 (§2.3) gives an FMU's documentation (its place in the
//! archive is the link; the XML has no attribute for it). Entries carry a fixed timestamp,
//! so the same model and binary give the same archive.

use std::io::{Read, Seek, Write};
use std::path::Path;
use zip::write::SimpleFileOptions;

/// Where the embedded model sits in the archive.
pub const MODEL_ENTRY: &str = "resources/model.json";

/// Where the documentation page sits in the archive (FMI 2.0 §2.3).
pub const DOCUMENTATION_ENTRY: &str = "documentation/index.html";

/// Writes the archive to `out`.
pub fn pack(
    out: &Path,
    model_identifier: &str,
    description_xml: &str,
    binaries: &[(&str, &[u8])],
    model_json: &str,
    documentation_html: &str,
) -> std::io::Result<()> {
    let file = std::fs::File::create(out)?;
    let mut zip = zip::ZipWriter::new(file);
    let opts = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut entries: Vec<(String, &[u8], u32)> = vec![(
        "modelDescription.xml".into(),
        description_xml.as_bytes(),
        0o644,
    )];
    for &(platform, binary) in binaries {
        let suffix = crate::fmi::runtimes::suffix(platform);
        let name = format!("binaries/{platform}/{model_identifier}.{suffix}");
        entries.push((name, binary, 0o755));
    }
    entries.push((MODEL_ENTRY.into(), model_json.as_bytes(), 0o644));
    entries.push((
        DOCUMENTATION_ENTRY.into(),
        documentation_html.as_bytes(),
        0o644,
    ));
    for (name, bytes, mode) in entries {
        zip.start_file(name, opts.unix_permissions(mode))
            .map_err(std::io::Error::other)?;
        zip.write_all(bytes)?;
    }
    zip.finish().map_err(std::io::Error::other)?;
    Ok(())
}

/// Reads one entry of an archive as text.
pub fn read_entry<R: Read + Seek>(archive: R, name: &str) -> std::io::Result<String> {
    let mut zip = zip::ZipArchive::new(archive).map_err(std::io::Error::other)?;
    let mut entry = zip
        .by_name(name)
        .map_err(|e| std::io::Error::other(format!("{name}: {e}")))?;
    let mut text = String::new();
    entry.read_to_string(&mut text)?;
    Ok(text)
}
