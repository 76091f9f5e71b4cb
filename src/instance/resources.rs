//! The model of an FMU whose binary is the prebuilt runtime: read from the FMU's
//! `resources/model.json` at `fmi2Instantiate`, instead of compiled in.
//!
//! The importer names the unpacked `resources/` directory by a URI,
//! `fmuResourceLocation` (FMI 2.0 §2.1.6: "file:" scheme; importers write
//! `file:///dir/`, `file:/dir/` or `file://localhost/dir/`, percent-encoded,
//! and on Windows `file:///C:/dir/`). The text read there is checked against
//! the GUID of the `modelDescription.xml` the importer read
//! ([`crate::model::guid::of_json`] of that very text), so a model file and an XML
//! from different builds are refused with a reason, as the compiled binary
//! refuses an XML of another build. Everything here is safe code; the C side
//! (`template/src/model_source.rs`) only converts the two strings.

use crate::model::{guid, Model};
use std::path::PathBuf;

/// Where the model sits under the resource directory (`resources/model.json` in the archive).
pub const MODEL_FILE: &str = "model.json";

/// The directory named by a `file:` URI, percent-decoded.
pub fn directory_of_uri(uri: &str) -> Result<PathBuf, String> {
    let bad = |why: &str| format!("fmuResourceLocation {uri:?} {why}");
    let rest = match uri.get(..5) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file:") => &uri[5..],
        _ => return Err(bad("is not a file: URI")),
    };
    let (host, path) = match rest.strip_prefix("//") {
        Some(authority) => match authority.find('/') {
            Some(i) => (&authority[..i], &authority[i..]),
            None => return Err(bad("has no path after the host")),
        },
        None if rest.starts_with('/') => ("", rest),
        None => return Err(bad("has no absolute path")),
    };
    if rest.contains(['?', '#']) {
        return Err(bad(
            "has a query or fragment, which a directory cannot have",
        ));
    }
    let path = String::from_utf8(percent_decode(path).map_err(|e| bad(&e))?)
        .map_err(|_| bad("decodes to a path that is not UTF-8"))?;
    let host = if host.eq_ignore_ascii_case("localhost") {
        ""
    } else {
        host
    };
    native_path(host, &path).map_err(|e| bad(&e))
}

/// `%XX` sequences to bytes; any other character stands for itself.
fn percent_decode(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("has a bad percent escape at byte {i}"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(not(windows))]
fn native_path(host: &str, path: &str) -> Result<PathBuf, String> {
    if !host.is_empty() {
        return Err(format!("names host {host:?}; only local files can be read"));
    }
    Ok(PathBuf::from(path))
}

/// `/C:/dir` is the drive path `C:/dir`; a host is a UNC share `\\host\dir`.
#[cfg(windows)]
fn native_path(host: &str, path: &str) -> Result<PathBuf, String> {
    if !host.is_empty() {
        return Ok(PathBuf::from(format!(
            r"\\{host}{}",
            path.replace('/', "\\")
        )));
    }
    let b = path.as_bytes();
    if b.len() >= 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && (b[2] == b':' || b[2] == b'|')
    {
        return Ok(PathBuf::from(format!("{}:{}", &path[1..2], &path[3..])));
    }
    Ok(PathBuf::from(path))
}

/// The model in `resources/model.json` under `location`, checked against the
/// GUID the importer read from the XML; returns the model and its GUID.
pub fn load_model(
    location: Option<&str>,
    xml_guid: Option<&str>,
) -> Result<(Model, String), String> {
    let location = location.ok_or(
        "fmuResourceLocation is NULL, but this FMU's binary (the prebuilt lcsfmu runtime) \
         reads its model from resources/model.json",
    )?;
    let file = directory_of_uri(location)?.join(MODEL_FILE);
    let text = std::fs::read_to_string(&file).map_err(|e| {
        format!(
            "cannot read the model {} (from fmuResourceLocation {location:?}): {e}",
            file.display()
        )
    })?;
    let own = guid::of_json(&text);
    match xml_guid {
        Some(g) if g == own => {}
        g => {
            return Err(format!(
                "GUID {g:?} does not match the model in {} (GUID {own}): the modelDescription.xml \
                 and resources/model.json belong to different builds",
                file.display()
            ))
        }
    }
    let model = Model::from_json(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok((model, own))
}

#[cfg(all(test, not(windows)))]
mod tests {
    use super::*;

    #[test]
    fn file_uris_of_importers_name_the_directory() {
        for uri in [
            "file:///tmp/x/resources/",
            "file:/tmp/x/resources/",
            "file://localhost/tmp/x/resources/",
            "FILE:///tmp/x/resources/",
        ] {
            assert_eq!(
                directory_of_uri(uri).unwrap(),
                PathBuf::from("/tmp/x/resources/"),
                "{uri}"
            );
        }
        assert_eq!(
            directory_of_uri("file:///tmp/a%20b/%C3%A9%25/r").unwrap(),
            PathBuf::from("/tmp/a b/é%/r")
        );
    }

    #[test]
    fn other_uris_are_refused_with_the_reason() {
        for (uri, why) in [
            ("/tmp/x", "is not a file: URI"),
            ("http://h/x", "is not a file: URI"),
            ("file:tmp/x", "no absolute path"),
            ("file://host/tmp/x", "only local files"),
            ("file://host", "no path after the host"),
            ("file:///tmp/%2", "bad percent escape"),
            ("file:///tmp/%zz", "bad percent escape"),
            ("file:///tmp/%ff", "not UTF-8"),
            ("file:///tmp/x?y", "query or fragment"),
        ] {
            let e = directory_of_uri(uri).unwrap_err();
            assert!(e.contains(why) && e.contains(uri), "{uri}: {e}");
        }
    }
}
