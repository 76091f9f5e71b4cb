//! Which FMI version and interface type an FMU is built for.
//!
//! `lcsfmu build --fmi 2|3 --interface cs` picks them; everything that differs
//! between the versions in the archive (the binary's platform directory, the
//! description's writer, the template's shell) asks this type. Co-Simulation is
//! the one interface type today; Model Exchange is refused with a clear message
//! until it exists, and the type has room for it.

use std::fmt;

/// The FMI version of an FMU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FmiVersion {
    /// FMI 2.0 (the default: the FMU lcsfmu always built).
    #[default]
    V2,
    /// FMI 3.0.
    V3,
}

impl FmiVersion {
    /// From `--fmi`: `2`, `2.0`, `3` or `3.0`.
    pub fn parse(text: &str) -> Result<FmiVersion, String> {
        match text.trim() {
            "2" | "2.0" => Ok(FmiVersion::V2),
            "3" | "3.0" => Ok(FmiVersion::V3),
            other => Err(format!("unknown FMI version '{other}' (known: 2, 3)")),
        }
    }

    /// The `fmiVersion` attribute of modelDescription.xml.
    pub fn attribute(self) -> &'static str {
        match self {
            FmiVersion::V2 => "2.0",
            FmiVersion::V3 => "3.0",
        }
    }

    /// From the `fmiVersion` attribute (FMI 3.0 allows `3.0` followed by a
    /// pre-release or patch suffix such as `3.0.1`).
    pub fn from_attribute(text: &str) -> Option<FmiVersion> {
        match text {
            "2.0" => Some(FmiVersion::V2),
            t if t == "3.0" || t.starts_with("3.0.") || t.starts_with("3.0-") => {
                Some(FmiVersion::V3)
            }
            _ => None,
        }
    }

    /// The directory of the Linux x86-64 binary under `binaries/`.
    pub fn platform_dir(self) -> &'static str {
        match self {
            FmiVersion::V2 => "linux64",
            FmiVersion::V3 => "x86_64-linux",
        }
    }

    /// Where the binary of `model_identifier` sits in the archive.
    pub fn binary_entry(self, model_identifier: &str) -> String {
        format!("binaries/{}/{model_identifier}.so", self.platform_dir())
    }
}

impl fmt::Display for FmiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FMI {}", self.attribute())
    }
}

/// The interface types an FMU provides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interfaces {
    pub co_simulation: bool,
}

/// `--interface`: the interface types to build, Co-Simulation only for now.
pub fn parse_interfaces(text: &str) -> Result<Interfaces, String> {
    for part in text.split(',').map(str::trim) {
        match part {
            "cs" => {}
            "me" => {
                return Err(
                    "--interface me: Model Exchange is not provided yet; build with --interface cs"
                        .into(),
                )
            }
            other => {
                return Err(format!(
                "--interface: unknown interface type '{other}' (known: cs; me is not provided yet)"
            ))
            }
        }
    }
    Ok(Interfaces {
        co_simulation: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_interfaces_parse() {
        assert_eq!(FmiVersion::parse("3"), Ok(FmiVersion::V3));
        assert_eq!(FmiVersion::parse("2.0"), Ok(FmiVersion::V2));
        assert!(FmiVersion::parse("1").unwrap_err().contains("'1'"));
        assert_eq!(FmiVersion::from_attribute("3.0.2"), Some(FmiVersion::V3));
        assert_eq!(FmiVersion::from_attribute("2.0"), Some(FmiVersion::V2));
        assert_eq!(FmiVersion::from_attribute("1.0"), None);
        assert_eq!(
            FmiVersion::V3.binary_entry("m"),
            "binaries/x86_64-linux/m.so"
        );
        assert!(parse_interfaces("cs").is_ok());
        assert!(parse_interfaces("me")
            .unwrap_err()
            .contains("not provided yet"));
        assert!(parse_interfaces("cs,me").is_err());
        assert!(parse_interfaces("se").unwrap_err().contains("'se'"));
    }
}
