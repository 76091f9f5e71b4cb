//! The GUID of a model: a name-based UUID (version 5) of the model's JSON text
//! ([`super::Model::to_json`], exactly what the FMU carries as
//! `resources/model.json`) and the tool version.
//!
//! Any change to the model, or to the code that runs it, gives a new GUID, so a
//! stale binary/XML pair is refused at instantiation. Hashing the text rather
//! than a parsed model lets the prebuilt runtime check the file it reads without
//! re-serializing it: a `model.json` edited after the build no longer matches the
//! GUID of the `modelDescription.xml` beside it.

/// Namespace for name-based GUIDs of lcsfmu models (a fixed random UUID).
const NAMESPACE: uuid::Uuid = uuid::Uuid::from_u128(0x5b1d_7c3e_92a4_4f0b_8d6e_1a2b_3c4d_5e6f);

/// The GUID (`{xxxxxxxx-…}`) of the model whose [`super::Model::to_json`] text is `json`.
pub fn of_json(json: &str) -> String {
    let text = format!("lcsfmu {}\n{json}", env!("CARGO_PKG_VERSION"));
    format!("{{{}}}", uuid::Uuid::new_v5(&NAMESPACE, text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_change_of_the_text_changes_the_guid() {
        let a = of_json(r#"{"name":"a"}"#);
        assert_eq!(a, of_json(r#"{"name":"a"}"#));
        assert_ne!(a, of_json(r#"{"name":"b"}"#));
        assert_ne!(a, of_json(r#"{"name": "a"}"#));
        assert_eq!(a.len(), 38);
        assert!(a.starts_with('{') && a.ends_with('}'));
    }
}
