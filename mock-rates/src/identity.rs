//! A server's TLS identity: a CA made for it, and the leaf certificate for `localhost` and
//! `127.0.0.1` that the CA signed.

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};
use serde::{Deserialize, Serialize};

/// What a server over TLS serves: the CA's certificate (PEM), which its clients trust, and the
/// leaf the CA signed for `localhost` and `127.0.0.1`, with the leaf's key (PKCS#8). Made by
/// [`TlsIdentity::generate`]; given to a server in [`crate::TlsSettings::identity`], so that a server
/// started again (an upstream restarted in place) serves the identity its clients already
/// trust. Serialized as JSON for a server in another process: whoever writes it keeps the
/// file to its owner, as any private key.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlsIdentity {
    pub ca_pem: String,
    leaf_cert_der: Vec<u8>,
    leaf_key_der: Vec<u8>,
}

impl fmt::Debug for TlsIdentity {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The key stays out of logs.
        formatter
            .debug_struct("TlsIdentity")
            .field("ca_pem", &self.ca_pem)
            .finish_non_exhaustive()
    }
}

impl TlsIdentity {
    /// A fresh CA, and a leaf it signed naming `localhost` and `127.0.0.1`.
    ///
    /// # Errors
    /// A key or certificate cannot be made.
    pub fn generate() -> io::Result<Self> {
        Self::generate_also_for(&[])
    }

    /// [`TlsIdentity::generate`], the leaf naming `addresses` too: for a server listening on an
    /// address other than loopback (the bench's WAN suite's upstream, in a network namespace of
    /// its own), which its clients reach by that address and check the certificate against.
    ///
    /// # Errors
    /// A key or certificate cannot be made.
    pub fn generate_also_for(addresses: &[IpAddr]) -> io::Result<Self> {
        certificates(addresses).map_err(io::Error::other)
    }

    /// The CA's PEM, the leaf's certificate and its PKCS#8 key (DER).
    pub(crate) fn into_parts(self) -> (String, Vec<u8>, Vec<u8>) {
        (self.ca_pem, self.leaf_cert_der, self.leaf_key_der)
    }
}

/// A fresh CA, and a leaf it signed naming `localhost`, `127.0.0.1` and `addresses`.
fn certificates(addresses: &[IpAddr]) -> Result<TlsIdentity, rcgen::Error> {
    let ca_key = KeyPair::generate()?;
    let mut ca_params = CertificateParams::default();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    // A name of its own per start: a client holding the CA of an earlier run is then told
    // the issuer is unknown, rather than that a signature is bad.
    ca_params.distinguished_name.push(
        DnType::CommonName,
        format!("mock-rates test CA {:016x}", fastrand::u64(..)),
    );
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_pem = ca_params.self_signed(&ca_key)?.pem();

    let leaf_key = KeyPair::generate()?;
    let mut leaf_params = CertificateParams::default();
    leaf_params
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    // Both kinds of name, so clients can connect by host name or by address.
    leaf_params.subject_alt_names = vec![
        SanType::DnsName("localhost".try_into()?),
        SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)),
    ];
    leaf_params.subject_alt_names.extend(
        addresses
            .iter()
            .filter(|&&address| address != IpAddr::V4(Ipv4Addr::LOCALHOST))
            .map(|&address| SanType::IpAddress(address)),
    );
    leaf_params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let issuer = Issuer::new(ca_params, ca_key);
    let leaf_cert = leaf_params.signed_by(&leaf_key, &issuer)?;
    Ok(TlsIdentity {
        ca_pem,
        leaf_cert_der: leaf_cert.der().to_vec(),
        leaf_key_der: leaf_key.serialize_der(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The DER of a subject alternative name `iPAddress` (context tag 7) of four bytes.
    fn names_address(identity: &TlsIdentity, address: [u8; 4]) -> bool {
        let name = [&[0x87, 0x04][..], &address[..]].concat();
        identity
            .leaf_cert_der
            .windows(name.len())
            .any(|window| window == name)
    }

    #[test]
    fn a_leaf_names_the_addresses_asked_for_besides_loopback() {
        let plain = TlsIdentity::generate().expect("an identity");
        assert!(names_address(&plain, [127, 0, 0, 1]));
        assert!(!names_address(&plain, [10, 77, 0, 2]));
        let also = TlsIdentity::generate_also_for(&[
            IpAddr::V4(Ipv4Addr::new(10, 77, 0, 2)),
            IpAddr::V4(Ipv4Addr::LOCALHOST),
        ])
        .expect("an identity");
        assert!(names_address(&also, [10, 77, 0, 2]));
        assert!(names_address(&also, [127, 0, 0, 1]));
    }

    #[test]
    fn an_identity_survives_its_json_and_keeps_its_key_out_of_debug() {
        let identity = TlsIdentity::generate().expect("an identity");
        let json = serde_json::to_string(&identity).expect("serialized");
        let back: TlsIdentity = serde_json::from_str(&json).expect("read back");
        assert_eq!(back, identity);
        assert!(identity.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        let shown = format!("{identity:?}");
        assert!(!shown.contains("leaf_key_der"), "{shown}");
        assert_ne!(
            TlsIdentity::generate().expect("another").ca_pem,
            identity.ca_pem,
            "each identity has a CA of its own"
        );
    }
}
