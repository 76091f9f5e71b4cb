//! Which FMI version and interface type an FMU is built for.
//!
//! `lcsfmu build --fmi 2|3 --interface cs|me|cs,me` picks them; everything that
//! differs between the versions in the archive (the binary's platform
//! directory, the description's writer, the template's shell) asks these types.

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
    pub model_exchange: bool,
}

impl Interfaces {
    /// Co-Simulation alone: the FMU lcsfmu always built.
    pub const CO_SIMULATION: Interfaces = Interfaces {
        co_simulation: true,
        model_exchange: false,
    };
}

impl Default for Interfaces {
    fn default() -> Self {
        Interfaces::CO_SIMULATION
    }
}

impl fmt::Display for Interfaces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = match (self.co_simulation, self.model_exchange) {
            (true, true) => "cs,me",
            (false, true) => "me",
            _ => "cs",
        };
        f.write_str(names)
    }
}

/// `--interface`: `cs`, `me` or both, comma-separated.
pub fn parse_interfaces(text: &str) -> Result<Interfaces, String> {
    let mut found = Interfaces {
        co_simulation: false,
        model_exchange: false,
    };
    for part in text.split(',').map(str::trim) {
        match part {
            "cs" => found.co_simulation = true,
            "me" => found.model_exchange = true,
            other => {
                return Err(format!(
                    "--interface: unknown interface type '{other}' (known: cs, me, or cs,me)"
                ))
            }
        }
    }
    Ok(found)
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
        assert_eq!(parse_interfaces("cs"), Ok(Interfaces::CO_SIMULATION));
        let me = parse_interfaces("me").unwrap();
        assert!(me.model_exchange && !me.co_simulation);
        let both = parse_interfaces("cs, me").unwrap();
        assert!(both.model_exchange && both.co_simulation);
        assert_eq!(both.to_string(), "cs,me");
        assert!(parse_interfaces("se").unwrap_err().contains("'se'"));
        assert!(parse_interfaces("").is_err());
    }
}
