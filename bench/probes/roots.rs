//! The system's trusted roots, as the adapters load them (rustls-native-certs).

use rustls_native_certs::load_native_certs;
use rustls_pki_types::CertificateDer;

/// Every root the system offers; an error when it offers none.
pub fn certificates() -> Result<Vec<CertificateDer<'static>>, String> {
    let loaded = load_native_certs();
    if loaded.certs.is_empty() {
        return Err(format!("no system roots: {:?}", loaded.errors));
    }
    Ok(loaded.certs)
}

/// The same roots as a rustls store (ureq takes the list).
#[cfg(feature = "rustls-store")]
pub fn store() -> Result<rustls::RootCertStore, String> {
    let mut store = rustls::RootCertStore::empty();
    let (_, _) = store.add_parsable_certificates(certificates()?);
    Ok(store)
}
