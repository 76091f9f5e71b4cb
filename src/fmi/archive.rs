//! Reading an `.fmu` archive that may be hostile, for `lcsfmu check` and
//! `lcsfmu simulate FILE.fmu`.
//!
//! An FMU is someone else's zip file. Its central directory may name entries
//! outside the archive's directory (`../x`, `/etc/x`, `C:x`), symbolic links,
//! sizes that lie, or data that inflates a thousand-fold (a zip bomb, or many
//! entries sharing one compressed block). Nothing here follows a name or a link:
//! entries are read into memory by exact name, and every read stops at a cap on
//! the bytes actually decompressed, whatever the headers declare. The caps:
//!
//! - [`MAX_ENTRIES`] entries in the central directory;
//! - [`MAX_DESCRIPTION`] (64 MiB) for `modelDescription.xml` and `resources/model.json`
//!   (the 1,000-bead chain's are about 1 MB);
//! - [`MAX_ENTRY`] (256 MiB) for any other entry;
//! - [`MAX_TOTAL`] (1 GiB) for all entries together, declared or decompressed.
//!
//! A declared size over a cap is refused before anything is inflated; a declared
//! size under it is not trusted, the reader stops one byte past the cap.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Entries a central directory may list.
pub const MAX_ENTRIES: usize = 10_000;
/// Decompressed bytes of `modelDescription.xml` or `resources/model.json`.
pub const MAX_DESCRIPTION: u64 = 64 << 20;
/// Decompressed bytes of any other single entry.
pub const MAX_ENTRY: u64 = 256 << 20;
/// Decompressed bytes of all entries together.
pub const MAX_TOTAL: u64 = 1 << 30;

/// Bytes as a short human figure for messages (`256 MiB`, `1 GiB`, `1024 bytes`).
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b => format!("{b} bytes"),
    }
}

/// Whether an entry name stays inside the archive's directory and is portable:
/// not empty, not absolute, no drive letter, backslash or NUL, no `..`
/// component, no leading `.` (FMI 2.0 archives use none of these).
pub fn safe_name(name: &str) -> bool {
    !(name.is_empty()
        || name.starts_with('/')
        || name.starts_with('.')
        || name.contains('\\')
        || name.contains('\0')
        || name.split('/').any(|part| part == "..")
        || name.as_bytes().get(1) == Some(&b':'))
}

/// The cap that applies to the entry `name`.
pub fn cap_of(name: &str) -> u64 {
    match name {
        "modelDescription.xml" | crate::fmi::pack::MODEL_ENTRY => MAX_DESCRIPTION,
        _ => MAX_ENTRY,
    }
}

/// One entry of the central directory, as declared.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub declared: u64,
    pub dir: bool,
    pub symlink: bool,
}

/// An open archive: its declared entries, and the file to read them from.
pub struct Archive {
    zip: zip::ZipArchive<File>,
    pub entries: Vec<Entry>,
}

impl Archive {
    /// Opens `path` and reads its central directory; refuses more than
    /// [`MAX_ENTRIES`] entries.
    pub fn open(path: &Path) -> Result<Archive, String> {
        let file = File::open(path).map_err(|e| e.to_string())?;
        let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("not a zip archive: {e}"))?;
        if zip.len() > MAX_ENTRIES {
            return Err(format!(
                "{} entries, more than the {MAX_ENTRIES} lcsfmu reads",
                zip.len()
            ));
        }
        let mut entries = Vec::with_capacity(zip.len());
        for i in 0..zip.len() {
            let e = zip.by_index_raw(i).map_err(|e| format!("entry {i}: {e}"))?;
            entries.push(Entry {
                name: e.name().to_string(),
                declared: e.size(),
                dir: e.is_dir(),
                symlink: e.is_symlink(),
            });
        }
        Ok(Archive { zip, entries })
    }

    /// The entries whose names fail [`safe_name`].
    pub fn unsafe_names(&self) -> Vec<&str> {
        let names = self.entries.iter().map(|e| e.name.as_str());
        names.filter(|n| !safe_name(n)).collect()
    }

    /// The entries that are symbolic links (a Unix mode of `S_IFLNK`).
    pub fn symlinks(&self) -> Vec<&str> {
        let links = self.entries.iter().filter(|e| e.symlink);
        links.map(|e| e.name.as_str()).collect()
    }

    /// Declared sizes over a cap: each entry against its own, the sum against
    /// [`MAX_TOTAL`]. Cheap, and what a plain bomb with honest headers trips.
    pub fn declared_limits(&self) -> Result<(), String> {
        let mut total = 0u64;
        for e in &self.entries {
            let cap = cap_of(&e.name);
            if e.declared > cap {
                return Err(format!(
                    "{} declares {} bytes, more than the {} limit",
                    e.name,
                    e.declared,
                    size_text(cap)
                ));
            }
            total = total.saturating_add(e.declared);
        }
        if total > MAX_TOTAL {
            return Err(format!(
                "the entries declare {total} bytes in all, more than the {} limit",
                size_text(MAX_TOTAL)
            ));
        }
        Ok(())
    }

    /// Whether a regular (non-directory, non-link) entry `name` exists.
    pub fn has(&self, name: &str) -> bool {
        let file = |e: &&Entry| e.name == name && !e.dir && !e.symlink;
        self.entries.iter().any(|e| file(&e))
    }

    /// The entry `name` decompressed, at most its cap ([`cap_of`]); `Ok(None)` when
    /// there is no such regular entry. A symbolic link is refused, never followed.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, String> {
        let Some(i) = self.entries.iter().position(|e| e.name == name) else {
            return Ok(None);
        };
        let entry = &self.entries[i];
        if entry.symlink {
            return Err(format!("{name} is a symbolic link"));
        }
        if entry.dir {
            return Ok(None);
        }
        let (cap, declared) = (cap_of(name), entry.declared);
        if declared > cap {
            return Err(format!(
                "{name} declares {declared} bytes, more than the {} limit",
                size_text(cap)
            ));
        }
        let mut bytes = Vec::with_capacity(declared.min(1 << 20) as usize);
        let n = self.inflate(i, cap, |chunk| bytes.extend_from_slice(chunk))?;
        if n > cap {
            return Err(over(name, cap, declared));
        }
        Ok(Some(bytes))
    }

    /// Inflates every regular entry into nothing, checking each against its cap
    /// and its CRC, and all of them against [`MAX_TOTAL`]: the bytes actually
    /// decompressed, so lying headers and entries that share data count in full.
    pub fn verify_all(&mut self) -> Result<(), String> {
        let mut total = 0u64;
        for i in 0..self.entries.len() {
            let e = &self.entries[i];
            if e.dir || e.symlink {
                continue;
            }
            let (own, left) = (cap_of(&e.name), MAX_TOTAL - total);
            let n = self.inflate(i, own.min(left), |_| ())?;
            let e = &self.entries[i];
            if n > own {
                return Err(over(&e.name, own, e.declared));
            }
            if n > left {
                return Err(format!(
                    "the entries decompress to more than the {} limit in all (reached at {})",
                    size_text(MAX_TOTAL),
                    e.name
                ));
            }
            total += n;
        }
        Ok(())
    }

    /// Decompresses entry `i` through `sink` in chunks, stopping one byte past
    /// `cap`: the count returned exceeds `cap` when the entry does. The zip
    /// reader checks the CRC when it reaches the end.
    fn inflate(&mut self, i: usize, cap: u64, mut sink: impl FnMut(&[u8])) -> Result<u64, String> {
        let name = self.entries[i].name.clone();
        let entry = self.zip.by_index(i).map_err(|e| format!("{name}: {e}"))?;
        let mut limited = entry.take(cap + 1);
        let mut buf = vec![0u8; 64 << 10];
        let mut n = 0u64;
        loop {
            let k = limited.read(&mut buf).map_err(|e| format!("{name}: {e}"))?;
            if k == 0 {
                return Ok(n);
            }
            n += k as u64;
            if n > cap {
                return Ok(n);
            }
            sink(&buf[..k]);
        }
    }
}

/// The message for an entry that inflates past its cap.
fn over(name: &str, cap: u64, declared: u64) -> String {
    format!(
        "{name} decompresses to more than {} ({declared} bytes declared)",
        size_text(cap)
    )
}

impl Archive {
    /// Refuses an archive with an unsafe name, a symbolic link, or declared sizes
    /// over the caps (the first one found, named): what `lcsfmu simulate FILE.fmu`
    /// asks before it reads anything.
    pub fn refuse_hostile(&self) -> Result<(), String> {
        if let Some(n) = self.unsafe_names().first() {
            return Err(format!(
                "entry \"{n}\" is outside the archive's directory or not portable"
            ));
        }
        if let Some(n) = self.symlinks().first() {
            return Err(format!("entry \"{n}\" is a symbolic link"));
        }
        self.declared_limits()
    }

    /// The entry `name` as UTF-8 text; a missing entry is an error.
    pub fn read_text(&mut self, name: &str) -> Result<String, String> {
        let bytes = self.read(name)?.ok_or_else(|| format!("no entry {name}"))?;
        String::from_utf8(bytes).map_err(|e| format!("{name} is not UTF-8: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_leave_the_directory_are_unsafe() {
        let safe = [
            "modelDescription.xml",
            "binaries/linux64/m.so",
            "resources/a/b.txt",
        ];
        for name in safe {
            assert!(safe_name(name), "{name}");
        }
        let unsafe_ = [
            "",
            "../x",
            "a/../../x",
            "a/..",
            "/etc/passwd",
            "C:/x",
            "c:x",
            "a\\..\\x",
            ".hidden",
            "a\0b",
        ];
        for name in unsafe_ {
            assert!(!safe_name(name), "{name:?}");
        }
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size_text(MAX_TOTAL), "1 GiB");
        assert_eq!(size_text(MAX_ENTRY), "256 MiB");
        assert_eq!(size_text(MAX_DESCRIPTION), "64 MiB");
        assert_eq!(size_text(1000), "1000 bytes");
        assert_eq!(size_text((1 << 20) + 1), "1048577 bytes");
    }
}
