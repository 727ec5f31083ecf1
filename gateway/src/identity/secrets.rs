//! One-time secrets: e-mail OTPs and their stored hashes, refresh tokens, PKCE checks.
//!
//! Stored forms follow GoTrue so exported rows and admin `generate_link` output mean the
//! same here: an OTP is kept as `hex(SHA-224(email + otp))` (that hash is also the token in
//! e-mail links, prefixed `pkce_` in PKCE flows). Refresh tokens are random; only their
//! SHA-256 is stored, so a database dump does not hand out sessions. Comparisons of secrets
//! are constant-time.

use base64::Engine;
use rand::Rng;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha224, Sha256};

/// Prefix of link tokens issued in the PKCE flow.
pub const PKCE_PREFIX: &str = "pkce_";

/// A random numeric OTP of `digits` digits (uniform, zero-padded).
pub fn generate_otp(digits: usize) -> String {
    let mut rng = rand::rng();
    (0..digits)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

/// GoTrue's stored form of an OTP: `hex(SHA-224(email_or_phone + otp))`.
pub fn token_hash(email_or_phone: &str, otp: &str) -> String {
    let mut hasher = Sha224::new();
    hasher.update(email_or_phone.as_bytes());
    hasher.update(otp.as_bytes());
    hex::encode(hasher.finalize())
}

/// A new refresh token: 32 lowercase letters and digits (about 165 bits).
pub fn generate_refresh_token() -> String {
    rand::rng()
        .sample_iter(&Alphanumeric)
        .take(32)
        .map(|b| char::from(b).to_ascii_lowercase())
        .collect()
}

/// What is stored for a refresh token.
pub fn refresh_token_digest(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A random password for accounts created without one (magic link, invite).
pub fn generate_password() -> String {
    rand::rng()
        .sample_iter(&Alphanumeric)
        .take(64)
        .map(char::from)
        .collect()
}

/// Constant-time equality of two secrets.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// How the code challenge was derived from the verifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeMethod {
    S256,
    Plain,
}

impl ChallengeMethod {
    /// Case-insensitive, as GoTrue parses it (auth-js sends `s256`).
    pub fn parse(raw: &str) -> Option<Self> {
        match raw.to_ascii_lowercase().as_str() {
            "s256" => Some(Self::S256),
            "plain" => Some(Self::Plain),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::S256 => "s256",
            Self::Plain => "plain",
        }
    }
}

/// Checks a PKCE code verifier against the stored challenge (RFC 7636).
pub fn verify_pkce(challenge: &str, method: ChallengeMethod, verifier: &str) -> bool {
    match method {
        ChallengeMethod::Plain => constant_time_eq(challenge, verifier),
        ChallengeMethod::S256 => {
            let digest = Sha256::digest(verifier.as_bytes());
            let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest);
            constant_time_eq(challenge.trim_end_matches('='), &encoded)
        }
    }
}

/// GoTrue's rules for a code challenge: 43–128 characters of `[A-Za-z0-9._~-]`.
pub fn check_code_challenge(challenge: &str) -> Result<(), &'static str> {
    if !(43..=128).contains(&challenge.len()) {
        return Err("code challenge has to be between 43 and 128 characters");
    }
    if !challenge
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'-'))
    {
        return Err(
            "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes",
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_hash_matches_gotrue() {
        // hex(SHA-224("user@example.com" + "123456")), as GoTrue's crypto.GenerateTokenHash.
        let expected = hex::encode(Sha224::digest(b"user@example.com123456"));
        assert_eq!(token_hash("user@example.com", "123456"), expected);
        assert_eq!(expected.len(), 56);
    }

    #[test]
    fn otps_are_numeric_with_the_asked_length() {
        for digits in [6, 8, 10] {
            let otp = generate_otp(digits);
            assert_eq!(otp.len(), digits);
            assert!(otp.bytes().all(|b| b.is_ascii_digit()));
        }
        assert_ne!(generate_otp(10), generate_otp(10));
    }

    #[test]
    fn refresh_tokens_are_random_and_stored_hashed() {
        let token = generate_refresh_token();
        assert_eq!(token.len(), 32);
        assert!(
            token
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        );
        assert_ne!(token, generate_refresh_token());
        let digest = refresh_token_digest(&token);
        assert_eq!(digest.len(), 64);
        assert!(!digest.contains(&token));
    }

    #[test]
    fn pkce_s256_and_plain() {
        // RFC 7636 appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(verify_pkce(challenge, ChallengeMethod::S256, verifier));
        assert!(!verify_pkce(challenge, ChallengeMethod::S256, "wrong"));
        assert!(verify_pkce("abc", ChallengeMethod::Plain, "abc"));
        assert!(!verify_pkce("abc", ChallengeMethod::Plain, "abd"));
        assert_eq!(ChallengeMethod::parse("S256"), Some(ChallengeMethod::S256));
        assert_eq!(ChallengeMethod::parse("md5"), None);
    }

    #[test]
    fn code_challenges_follow_gotrues_rules() {
        assert!(check_code_challenge(&"a".repeat(43)).is_ok());
        assert!(check_code_challenge(&"a".repeat(42)).is_err());
        assert!(check_code_challenge(&"a".repeat(129)).is_err());
        assert!(check_code_challenge(&format!("{}!", "a".repeat(43))).is_err());
    }

    #[test]
    fn constant_time_equality() {
        assert!(constant_time_eq("abc", "abc"));
        assert!(!constant_time_eq("abc", "abd"));
        assert!(!constant_time_eq("abc", "abcd"));
    }
}
