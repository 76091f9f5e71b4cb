//! The functions a win64 FMU's DLL exports, read from its PE file.
//!
//! Windows importers resolve the FMI functions with `GetProcAddress` by name,
//! which looks them up in the DLL's export directory (the first data directory
//! of a PE32+ optional header, "Microsoft PE and COFF Specification", §6.3), so
//! its name table is what decides whether the binary has the 34 FMI 2.0
//! functions and nothing else. Like [`super::elf`], a small parser on bytes in
//! memory: no `unsafe`, no loading (which runs `DllMain`), no external tool,
//! and every offset checked, since the file comes from an archive of unknown
//! origin (the `check_archive` fuzz target runs through it).

/// IMAGE_FILE_MACHINE_AMD64: the `win64` platform is x86-64.
const MACHINE_AMD64: u16 = 0x8664;
/// IMAGE_FILE_DLL in the COFF characteristics.
const FILE_DLL: u16 = 0x2000;
/// The optional header's magic of PE32+ (64-bit images).
const PE32_PLUS: u16 = 0x20b;
/// At most this many exported names are read (a DLL of FMI functions has 34).
const MAX_NAMES: u32 = 100_000;

/// Reads `N` bytes at `at`, or says the file is too short.
fn bytes<const N: usize>(data: &[u8], at: usize) -> Result<[u8; N], String> {
    data.get(at..at.saturating_add(N))
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| format!("truncated PE file (reading {N} bytes at {at})"))
}

fn u16_at(data: &[u8], at: usize) -> Result<u16, String> {
    bytes::<2>(data, at).map(u16::from_le_bytes)
}

fn u32_at(data: &[u8], at: usize) -> Result<u32, String> {
    bytes::<4>(data, at).map(u32::from_le_bytes)
}

/// Where a section of the image is in memory and in the file.
struct Section {
    address: u32,
    memory_size: u32,
    file_offset: u32,
    file_size: u32,
}

/// The file offset of a relative virtual address, if a section holds it.
fn offset_of(sections: &[Section], rva: u32) -> Result<usize, String> {
    sections
        .iter()
        .find_map(|s| {
            let within = rva.checked_sub(s.address)?;
            (within < s.memory_size.max(s.file_size) && within < s.file_size)
                .then(|| s.file_offset as usize + within as usize)
        })
        .ok_or_else(|| format!("address {rva:#x} is in no section of the file"))
}

/// The names a 64-bit (PE32+, x86-64) DLL exports, sorted.
pub fn exported_symbols(data: &[u8]) -> Result<Vec<String>, String> {
    if data.get(..2) != Some(b"MZ".as_slice()) {
        return Err("not a PE file (no MZ header)".into());
    }
    let pe = u32_at(data, 0x3c)? as usize;
    if bytes::<4>(data, pe)? != *b"PE\0\0" {
        return Err("not a PE file (no PE signature)".into());
    }
    let coff = pe + 4;
    let machine = u16_at(data, coff)?;
    if machine != MACHINE_AMD64 {
        return Err(format!(
            "machine {machine:#06x} is not x86-64 ({MACHINE_AMD64:#06x})"
        ));
    }
    let sections_count = u16_at(data, coff + 2)? as usize;
    let optional_size = u16_at(data, coff + 16)? as usize;
    if u16_at(data, coff + 18)? & FILE_DLL == 0 {
        return Err("not a DLL (IMAGE_FILE_DLL is not set)".into());
    }
    let optional = coff + 20;
    if u16_at(data, optional)? != PE32_PLUS {
        return Err("not a 64-bit image (the optional header is not PE32+)".into());
    }
    if u32_at(data, optional + 108)? == 0 {
        return Err("no export directory (no data directories)".into());
    }
    let export_rva = u32_at(data, optional + 112)?;
    let table = optional + optional_size;
    let sections = (0..sections_count)
        .map(|i| {
            let at = table + 40 * i;
            Ok(Section {
                memory_size: u32_at(data, at + 8)?,
                address: u32_at(data, at + 12)?,
                file_size: u32_at(data, at + 16)?,
                file_offset: u32_at(data, at + 20)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    if export_rva == 0 {
        return Err("no export directory".into());
    }
    let directory = offset_of(&sections, export_rva)?;
    let count = u32_at(data, directory + 24)?;
    if count > MAX_NAMES {
        return Err(format!("{count} exported names claimed"));
    }
    let names_at = offset_of(&sections, u32_at(data, directory + 32)?);
    let mut names = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let rva = u32_at(data, names_at.clone()? + 4 * i)?;
        names.push(string(data, offset_of(&sections, rva)?)?);
    }
    names.sort();
    names.dedup();
    Ok(names)
}

/// The NUL-terminated name at `at`.
fn string(data: &[u8], at: usize) -> Result<String, String> {
    let rest = data.get(at..).ok_or("truncated export name table")?;
    let end = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or("unterminated export name")?;
    Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal PE32+ DLL image: headers, one section holding an export
    /// directory with `names`.
    fn dll(names: &[&str]) -> Vec<u8> {
        let mut d = vec![0u8; 0x400];
        d[..2].copy_from_slice(b"MZ");
        d[0x3c..0x40].copy_from_slice(&0x80u32.to_le_bytes());
        d[0x80..0x84].copy_from_slice(b"PE\0\0");
        let coff = 0x84;
        d[coff..coff + 2].copy_from_slice(&MACHINE_AMD64.to_le_bytes());
        d[coff + 2..coff + 4].copy_from_slice(&1u16.to_le_bytes());
        d[coff + 16..coff + 18].copy_from_slice(&240u16.to_le_bytes());
        d[coff + 18..coff + 20].copy_from_slice(&FILE_DLL.to_le_bytes());
        let opt = coff + 20;
        d[opt..opt + 2].copy_from_slice(&PE32_PLUS.to_le_bytes());
        d[opt + 108..opt + 112].copy_from_slice(&16u32.to_le_bytes());
        d[opt + 112..opt + 116].copy_from_slice(&0x1000u32.to_le_bytes());
        let sec = opt + 240;
        // The section: RVA 0x1000, at file offset 0x200, 0x200 bytes.
        for (off, v) in [(8, 0x200u32), (12, 0x1000), (16, 0x200), (20, 0x200)] {
            d[sec + off..sec + off + 4].copy_from_slice(&v.to_le_bytes());
        }
        let dir = 0x200;
        d[dir + 24..dir + 28].copy_from_slice(&(names.len() as u32).to_le_bytes());
        d[dir + 32..dir + 36].copy_from_slice(&0x1040u32.to_le_bytes());
        let mut text = 0x80;
        for (i, name) in names.iter().enumerate() {
            let at = 0x240 + 4 * i;
            d[at..at + 4].copy_from_slice(&(0x1000 + text as u32).to_le_bytes());
            d[0x200 + text..0x200 + text + name.len()].copy_from_slice(name.as_bytes());
            text += name.len() + 1;
        }
        d
    }

    #[test]
    fn names_of_the_export_directory_are_read() {
        let names = exported_symbols(&dll(&["fmi2DoStep", "fmi2GetVersion"])).unwrap();
        assert_eq!(names, ["fmi2DoStep", "fmi2GetVersion"]);
        assert_eq!(exported_symbols(&dll(&[])).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn damaged_files_are_errors_not_panics() {
        let good = dll(&["fmi2DoStep"]);
        assert!(exported_symbols(b"\x7fELF")
            .unwrap_err()
            .contains("not a PE file"));
        for cut in [0x10, 0x90, 0x100, 0x210, 0x250, 0x285] {
            assert!(exported_symbols(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut not_dll = good.clone();
        not_dll[0x84 + 19] = 0;
        assert!(exported_symbols(&not_dll)
            .unwrap_err()
            .contains("not a DLL"));
        let mut arm = good.clone();
        arm[0x85] = 0xAA; // 0xAA64: ARM64
        assert!(exported_symbols(&arm).unwrap_err().contains("not x86-64"));
        let mut far = good.clone();
        far[0x240..0x244].copy_from_slice(&0xFFFF_0000u32.to_le_bytes());
        assert!(exported_symbols(&far)
            .unwrap_err()
            .contains("in no section"));
        let mut many = good;
        many[0x200 + 24..0x200 + 28].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(exported_symbols(&many).is_err());
    }
}
