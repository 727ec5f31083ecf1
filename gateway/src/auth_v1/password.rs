//! Passwords: GoTrue's strength rules and bcrypt hashing off the async workers.
//!
//! Hashes are bcrypt with cost 10 in the `$2a$` form Go's bcrypt writes, so hashes move
//! between Supabase and Cielo in both directions (`$2b$`/`$2y$` verify too). bcrypt costs
//! tens of milliseconds of CPU, so it runs on a fixed set of hashing threads (one per core
//! by default), never on an actix worker: a sign-in storm queues for the hasher instead of
//! starving every other request. Unknown users get
//! a verification against a fixed dummy hash, so their answer takes as long as a wrong
//! password (no account enumeration by timing).

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, LazyLock, Mutex, mpsc};

use tokio::sync::oneshot;

use super::error::{AuthError, AuthResult};

/// bcrypt's own limit; GoTrue refuses longer passwords instead of truncating them.
pub const MAX_PASSWORD_LENGTH: usize = 72;
/// GoTrue's `bcrypt.DefaultCost`.
pub const BCRYPT_COST: u32 = 10;

/// A cost-10 hash of a random string nobody knows, for constant-work checks.
static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| {
    bcrypt::hash_with_result(crate::identity::secrets::generate_password(), BCRYPT_COST)
        .map(|parts| parts.format_for_version(bcrypt::Version::TwoA))
        .unwrap_or_default()
});

/// GoTrue's strength rules (`PASSWORD_MIN_LENGTH`, `PASSWORD_REQUIRED_CHARACTERS`).
#[derive(Debug, Clone)]
pub struct PasswordRules {
    pub min_length: usize,
    pub required_characters: Vec<String>,
}

impl PasswordRules {
    /// 400 `validation_failed` above 72 bytes; 422 `weak_password` with GoTrue's reasons
    /// and messages otherwise.
    pub fn check(&self, password: &str) -> AuthResult<()> {
        if password.len() > MAX_PASSWORD_LENGTH {
            return Err(AuthError::validation(format!(
                "Password cannot be longer than {MAX_PASSWORD_LENGTH} characters"
            )));
        }
        let mut reasons = Vec::new();
        let mut messages = Vec::new();
        // GoTrue compares byte lengths (Go's len()).
        if password.len() < self.min_length {
            reasons.push("length");
            messages.push(format!(
                "Password should be at least {} characters.",
                self.min_length
            ));
        }
        let misses_a_set = self
            .required_characters
            .iter()
            .any(|set| !set.is_empty() && !password.chars().any(|c| set.contains(c)));
        if misses_a_set {
            reasons.push("characters");
            messages.push(format!(
                "Password should contain at least one character of each: {}.",
                self.required_characters.join(", ")
            ));
        }
        if reasons.is_empty() {
            Ok(())
        } else {
            Err(AuthError::weak_password(messages.join(" "), reasons))
        }
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// The bcrypt workers: a fixed set of threads fed by one queue.
///
/// A worker that finishes a hash takes the next queued one at once, on the core it
/// already holds. Handing the core over instead (a semaphore plus `spawn_blocking`)
/// takes several thread wake-ups per hash, and the scheduler leaves the core idle for
/// milliseconds while they happen: 5–8 % of a 2-core machine in a sign-in storm.
#[derive(Debug, Clone)]
pub struct PasswordHasher {
    jobs: mpsc::Sender<Job>,
}

impl PasswordHasher {
    /// Starts `concurrency` hashing threads; they end when the last clone is dropped.
    pub fn new(concurrency: usize) -> std::io::Result<Self> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for n in 0..concurrency.max(1) {
            let queue = Arc::clone(&queue);
            std::thread::Builder::new()
                .name(format!("cielo-hash-{n}"))
                .spawn(move || {
                    loop {
                        // The lock is released before the job runs.
                        let next = match queue.lock() {
                            Ok(queue) => queue.recv(),
                            Err(_) => return,
                        };
                        let Ok(job) = next else { return };
                        // A panicking job loses its answer (the caller gets a 500), not the
                        // worker.
                        let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
                    }
                })?;
        }
        Ok(Self { jobs })
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> AuthResult<T> {
        let (answer, answered) = oneshot::channel();
        self.jobs
            .send(Box::new(move || {
                let _ = answer.send(work());
            }))
            .map_err(|error| AuthError::internal("Password hashing unavailable", error))?;
        answered
            .await
            .map_err(|error| AuthError::internal("Password hashing failed", error))
    }

    /// A new `$2a$10$` hash.
    pub async fn hash(&self, password: &str) -> AuthResult<String> {
        let password = password.to_owned();
        self.run(move || bcrypt::hash_with_result(password, BCRYPT_COST))
            .await?
            .map(|parts| parts.format_for_version(bcrypt::Version::TwoA))
            .map_err(|error| AuthError::internal("Error hashing password", error))
    }

    /// Whether `password` matches `hash`; `None` (no user, or no password) spends the
    /// same time and answers false.
    pub async fn verify(&self, password: &str, hash: Option<&str>) -> AuthResult<bool> {
        let password = password.to_owned();
        let (hash, real) = match hash.filter(|hash| !hash.is_empty()) {
            Some(hash) => (hash.to_owned(), true),
            None => (String::new(), false),
        };
        let matches = self
            .run(move || {
                let hash = if real { hash } else { DUMMY_HASH.clone() };
                bcrypt::verify(password, &hash).unwrap_or(false)
            })
            .await?;
        Ok(real && matches)
    }
}

/// Whether a stored hash is one we can verify (bcrypt `$2a$`/`$2b$`/`$2y$`).
pub fn is_supported_hash(hash: &str) -> bool {
    let parts: Vec<&str> = hash.split('$').collect();
    parts.len() == 4
        && parts[0].is_empty()
        && matches!(parts[1], "2a" | "2b" | "2y")
        && parts[2]
            .parse::<u32>()
            .is_ok_and(|cost| (4..=31).contains(&cost))
        && parts[3].len() == 53
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> PasswordRules {
        PasswordRules {
            min_length: 6,
            required_characters: Vec::new(),
        }
    }

    #[test]
    fn length_rules_like_gotrue() {
        assert!(rules().check("secret").is_ok());
        let error = rules().check("short").unwrap_err();
        assert_eq!(error.code, "weak_password");
        assert_eq!(error.weak_password, Some(vec!["length"]));
        assert_eq!(error.message, "Password should be at least 6 characters.");
        assert!(rules().check(&"a".repeat(72)).is_ok());
        let error = rules().check(&"a".repeat(73)).unwrap_err();
        assert_eq!(error.code, "validation_failed");
        assert_eq!(
            error.message,
            "Password cannot be longer than 72 characters"
        );
    }

    #[test]
    fn character_sets_are_all_required() {
        let rules = PasswordRules {
            min_length: 8,
            required_characters: vec!["abcdefghijklmnopqrstuvwxyz".into(), "0123456789".into()],
        };
        assert!(rules.check("abcdefg1").is_ok());
        let error = rules.check("abc").unwrap_err();
        assert_eq!(error.weak_password, Some(vec!["length", "characters"]));
        assert!(error.message.starts_with("Password should be at least 8 characters. Password should contain at least one character of each: "));
    }

    #[test]
    fn the_dummy_hash_is_a_real_cost_10_hash() {
        assert!(is_supported_hash(&DUMMY_HASH));
        assert!(DUMMY_HASH.starts_with("$2a$10$"));
        assert!(!is_supported_hash("plaintext"));
        assert!(!is_supported_hash("$argon2id$v=19$m=65536,t=3,p=4$abc$def"));
    }

    #[tokio::test]
    async fn hashes_are_gotrue_format_and_verify() {
        let hasher = PasswordHasher::new(2).unwrap();
        let hash = hasher.hash("contraseña-segura").await.unwrap();
        assert!(hash.starts_with("$2a$10$"), "{hash}");
        assert!(is_supported_hash(&hash));
        assert!(
            hasher
                .verify("contraseña-segura", Some(&hash))
                .await
                .unwrap()
        );
        assert!(!hasher.verify("otra", Some(&hash)).await.unwrap());
        assert!(!hasher.verify("anything", None).await.unwrap());
    }

    #[tokio::test]
    async fn hashes_made_by_gotrue_verify() {
        // Go's golang.org/x/crypto/bcrypt output format ($2a$, cost 10) for "password123".
        let hasher = PasswordHasher::new(1).unwrap();
        let hash = bcrypt::hash_with_result("password123", 10)
            .unwrap()
            .format_for_version(bcrypt::Version::TwoA);
        assert!(hasher.verify("password123", Some(&hash)).await.unwrap());
        let two_b = hash.replacen("$2a$", "$2b$", 1);
        assert!(hasher.verify("password123", Some(&two_b)).await.unwrap());
    }
}
