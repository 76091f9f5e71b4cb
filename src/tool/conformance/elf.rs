//! The dynamic symbols an FMU's shared library exports, read from its ELF file.
//!
//! Importers resolve the FMI functions by name from the dynamic symbol table
//! (`.dynsym`), so that table is what decides whether a binary has the 34 FMI 2.0
//! co-simulation functions and nothing else. Only 64-bit little-endian ELF is read
//! (the `linux64` platform is x86-64 or aarch64). A small parser of our own, on
//! bytes in memory, keeps the check free of `unsafe`, of `dlopen` (loading a
//! binary runs its initializers) and of external tools such as `nm`.

/// The 10 functions FMI 2.0 requires of a Model Exchange FMU besides the 25
/// common ones (fmi2Functions.h).
pub const FMI2_ME_FUNCTIONS: [&str; 10] = [
    "fmi2EnterEventMode",
    "fmi2NewDiscreteStates",
    "fmi2EnterContinuousTimeMode",
    "fmi2CompletedIntegratorStep",
    "fmi2SetTime",
    "fmi2SetContinuousStates",
    "fmi2GetDerivatives",
    "fmi2GetEventIndicators",
    "fmi2GetContinuousStates",
    "fmi2GetNominalsOfContinuousStates",
];

/// The FMI 2.0 functions an FMU declaring these interface types exports: the 25
/// common ones, the 9 of co-simulation, the 10 of Model Exchange.
pub fn fmi2_functions(co_simulation: bool, model_exchange: bool) -> Vec<&'static str> {
    let (common, cs) = FMI2_CS_FUNCTIONS.split_at(25);
    let mut out = common.to_vec();
    if co_simulation {
        out.extend(cs);
    }
    if model_exchange {
        out.extend(FMI2_ME_FUNCTIONS);
    }
    out
}

/// The functions FMI 2.0 requires of a co-simulation FMU: 25 common to both
/// interfaces and 9 of co-simulation (fmi2Functions.h).
pub const FMI2_CS_FUNCTIONS: [&str; 34] = [
    "fmi2GetTypesPlatform",
    "fmi2GetVersion",
    "fmi2SetDebugLogging",
    "fmi2Instantiate",
    "fmi2FreeInstance",
    "fmi2SetupExperiment",
    "fmi2EnterInitializationMode",
    "fmi2ExitInitializationMode",
    "fmi2Terminate",
    "fmi2Reset",
    "fmi2GetReal",
    "fmi2GetInteger",
    "fmi2GetBoolean",
    "fmi2GetString",
    "fmi2SetReal",
    "fmi2SetInteger",
    "fmi2SetBoolean",
    "fmi2SetString",
    "fmi2GetFMUstate",
    "fmi2SetFMUstate",
    "fmi2FreeFMUstate",
    "fmi2SerializedFMUstateSize",
    "fmi2SerializeFMUstate",
    "fmi2DeSerializeFMUstate",
    "fmi2GetDirectionalDerivative",
    "fmi2SetRealInputDerivatives",
    "fmi2GetRealOutputDerivatives",
    "fmi2DoStep",
    "fmi2CancelStep",
    "fmi2GetStatus",
    "fmi2GetRealStatus",
    "fmi2GetIntegerStatus",
    "fmi2GetBooleanStatus",
    "fmi2GetStringStatus",
];

const SHT_DYNSYM: u32 = 11;
const SHN_UNDEF: u16 = 0;
const STB_GLOBAL: u8 = 1;
const STB_WEAK: u8 = 2;
const STB_GNU_UNIQUE: u8 = 10;
const STT_SECTION: u8 = 3;
const STT_FILE: u8 = 4;
const STV_HIDDEN: u8 = 2;
const STV_INTERNAL: u8 = 1;

/// Reads `N` bytes at `at`, or says the file is too short.
fn bytes<const N: usize>(data: &[u8], at: u64) -> Result<[u8; N], String> {
    let at = usize::try_from(at).map_err(|_| "offset out of range".to_string())?;
    data.get(at..at.saturating_add(N))
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| format!("truncated ELF file (reading {N} bytes at {at})"))
}

fn u16_at(data: &[u8], at: u64) -> Result<u16, String> {
    bytes::<2>(data, at).map(u16::from_le_bytes)
}

fn u32_at(data: &[u8], at: u64) -> Result<u32, String> {
    bytes::<4>(data, at).map(u32::from_le_bytes)
}

fn u64_at(data: &[u8], at: u64) -> Result<u64, String> {
    bytes::<8>(data, at).map(u64::from_le_bytes)
}

/// One section header's fields that matter here.
struct Section {
    kind: u32,
    offset: u64,
    size: u64,
    link: u32,
    entsize: u64,
}

fn section(data: &[u8], shoff: u64, shentsize: u64, i: u64) -> Result<Section, String> {
    let at = shoff
        .checked_add(i.checked_mul(shentsize).ok_or("section table overflows")?)
        .ok_or("section table overflows")?;
    Ok(Section {
        kind: u32_at(data, at + 4)?,
        offset: u64_at(data, at + 24)?,
        size: u64_at(data, at + 32)?,
        link: u32_at(data, at + 40)?,
        entsize: u64_at(data, at + 56)?,
    })
}

/// The names of the symbols a 64-bit little-endian ELF shared library defines and
/// exports (global, weak or unique binding, default or protected visibility), the
/// set `nm -D --defined-only` lists, without linker-reserved names (`_init`,
/// `_fini`, `__bss_start`, ...), which begin with an underscore.
pub fn exported_symbols(data: &[u8]) -> Result<Vec<String>, String> {
    if data.get(..4) != Some(b"\x7fELF".as_slice()) {
        return Err("not an ELF file".into());
    }
    if data.get(4) != Some(&2) || data.get(5) != Some(&1) {
        return Err("not a 64-bit little-endian ELF file".into());
    }
    // ET_DYN: an executable (ET_EXEC) or an object file cannot be loaded by dlopen.
    if u16_at(data, 16)? != 3 {
        return Err("not a shared library (ELF type is not ET_DYN)".into());
    }
    let shoff = u64_at(data, 0x28)?;
    let shentsize = u64::from(u16_at(data, 0x3a)?);
    let shnum = u64::from(u16_at(data, 0x3c)?);
    if shentsize < 64 {
        return Err(format!("section header size {shentsize} is below 64"));
    }
    let mut dynsym = None;
    for i in 0..shnum {
        let s = section(data, shoff, shentsize, i)?;
        if s.kind == SHT_DYNSYM {
            dynsym = Some(s);
            break;
        }
    }
    let dynsym = dynsym.ok_or("no dynamic symbol table (.dynsym)")?;
    if dynsym.link as u64 >= shnum {
        return Err("the dynamic symbol table links to no string table".into());
    }
    let strtab = section(data, shoff, shentsize, u64::from(dynsym.link))?;
    let entsize = if dynsym.entsize == 0 {
        24
    } else {
        dynsym.entsize
    };
    let mut names = vec![];
    for k in 0..dynsym.size / entsize {
        let at = dynsym.offset + k * entsize;
        let name = u32_at(data, at)?;
        let info = bytes::<1>(data, at + 4)?[0];
        let other = bytes::<1>(data, at + 5)?[0];
        let shndx = u16_at(data, at + 6)?;
        let (binding, kind, visibility) = (info >> 4, info & 0xf, other & 3);
        let exported = shndx != SHN_UNDEF
            && matches!(binding, STB_GLOBAL | STB_WEAK | STB_GNU_UNIQUE)
            && !matches!(kind, STT_SECTION | STT_FILE)
            && !matches!(visibility, STV_HIDDEN | STV_INTERNAL);
        if !exported {
            continue;
        }
        let text = string(data, &strtab, name)?;
        if !text.starts_with('_') && !text.is_empty() {
            names.push(text);
        }
    }
    names.sort();
    names.dedup();
    Ok(names)
}

/// The NUL-terminated string at `offset` in a string table section.
fn string(data: &[u8], table: &Section, offset: u32) -> Result<String, String> {
    let start = table
        .offset
        .checked_add(u64::from(offset))
        .filter(|&s| s < table.offset.saturating_add(table.size))
        .ok_or("symbol name outside the string table")?;
    let start = usize::try_from(start).map_err(|_| "offset out of range")?;
    let rest = data.get(start..).ok_or("truncated string table")?;
    let end = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or("unterminated symbol name")?;
    Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
}

/// The 75 functions of FMI 3.0's `fmi3Functions.h`, which an FMI 3.0 FMU exports
/// all, whatever interface types it provides (FMI 3.0 §2.5).
pub const FMI3_FUNCTIONS: [&str; 75] = [
    "fmi3GetVersion",
    "fmi3SetDebugLogging",
    "fmi3InstantiateModelExchange",
    "fmi3InstantiateCoSimulation",
    "fmi3InstantiateScheduledExecution",
    "fmi3FreeInstance",
    "fmi3EnterInitializationMode",
    "fmi3ExitInitializationMode",
    "fmi3EnterEventMode",
    "fmi3Terminate",
    "fmi3Reset",
    "fmi3GetFloat32",
    "fmi3GetFloat64",
    "fmi3GetInt8",
    "fmi3GetUInt8",
    "fmi3GetInt16",
    "fmi3GetUInt16",
    "fmi3GetInt32",
    "fmi3GetUInt32",
    "fmi3GetInt64",
    "fmi3GetUInt64",
    "fmi3GetBoolean",
    "fmi3GetString",
    "fmi3GetBinary",
    "fmi3GetClock",
    "fmi3SetFloat32",
    "fmi3SetFloat64",
    "fmi3SetInt8",
    "fmi3SetUInt8",
    "fmi3SetInt16",
    "fmi3SetUInt16",
    "fmi3SetInt32",
    "fmi3SetUInt32",
    "fmi3SetInt64",
    "fmi3SetUInt64",
    "fmi3SetBoolean",
    "fmi3SetString",
    "fmi3SetBinary",
    "fmi3SetClock",
    "fmi3GetNumberOfVariableDependencies",
    "fmi3GetVariableDependencies",
    "fmi3GetFMUState",
    "fmi3SetFMUState",
    "fmi3FreeFMUState",
    "fmi3SerializedFMUStateSize",
    "fmi3SerializeFMUState",
    "fmi3DeserializeFMUState",
    "fmi3GetDirectionalDerivative",
    "fmi3GetAdjointDerivative",
    "fmi3EnterConfigurationMode",
    "fmi3ExitConfigurationMode",
    "fmi3GetIntervalDecimal",
    "fmi3GetIntervalFraction",
    "fmi3GetShiftDecimal",
    "fmi3GetShiftFraction",
    "fmi3SetIntervalDecimal",
    "fmi3SetIntervalFraction",
    "fmi3SetShiftDecimal",
    "fmi3SetShiftFraction",
    "fmi3EvaluateDiscreteStates",
    "fmi3UpdateDiscreteStates",
    "fmi3EnterContinuousTimeMode",
    "fmi3CompletedIntegratorStep",
    "fmi3SetTime",
    "fmi3SetContinuousStates",
    "fmi3GetContinuousStateDerivatives",
    "fmi3GetEventIndicators",
    "fmi3GetContinuousStates",
    "fmi3GetNominalsOfContinuousStates",
    "fmi3GetNumberOfEventIndicators",
    "fmi3GetNumberOfContinuousStates",
    "fmi3EnterStepMode",
    "fmi3GetOutputDerivatives",
    "fmi3DoStep",
    "fmi3ActivateModelPartition",
];

/// Compares the exported names with the `expected` functions (FMI 2.0's 34 or
/// FMI 3.0's 75): `(missing, extra)`.
pub fn compare(exported: &[String], expected: &[&'static str]) -> (Vec<&'static str>, Vec<String>) {
    let missing = expected
        .iter()
        .copied()
        .filter(|f| !exported.iter().any(|e| e == f))
        .collect();
    let extra = exported
        .iter()
        .filter(|e| !expected.contains(&e.as_str()))
        .cloned()
        .collect();
    (missing, extra)
}
