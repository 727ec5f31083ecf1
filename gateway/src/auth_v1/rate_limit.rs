//! Rate limits of auth/v1, GoTrue's buckets keyed by client address and by e-mail.
//!
//! Each limit is a token bucket (GCRA, `governor`): `RATE_LIMIT_TOKEN_REFRESH` requests
//! per 5 minutes refill one at a time, with bursts of up to 30 (GoTrue's burst) or the
//! whole allowance when that is smaller — but never less than one second's worth, so very
//! high limits do not refuse concurrent requests. The client address is the socket peer unless
//! `RATE_LIMIT_HEADER` names a header a trusted proxy sets — a client-supplied
//! `X-Forwarded-For` never resets its own bucket. Sign-in, sign-up, OTP and recovery are
//! also limited per e-mail address, so spreading guesses over many addresses does not
//! help. Mails are limited per recipient and hour (`RATE_LIMIT_EMAIL_SENT`); MFA challenges
//! and verifications per client and minute (`MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`).

use std::num::NonZeroU32;
use std::time::Duration;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::AuthRateLimits;

/// GoTrue's `SetBurst(30)`.
const MAX_BURST: u32 = 30;

/// Which bucket family a request draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Token,
    Verify,
    Otp,
    Anonymous,
    MfaChallenge,
    MfaVerify,
}

/// One keyed limiter.
#[derive(Debug)]
struct Bucket(Option<DefaultKeyedRateLimiter<String>>);

impl Bucket {
    /// `events` per `period`; 0 means "always refuse", as GoTrue treats a zero rate.
    fn new(events: u32, period: Duration) -> Self {
        let Some(events) = NonZeroU32::new(events) else {
            return Self(None);
        };
        // The burst is GoTrue's 30, but never less than one second's worth of the limit:
        // with a high limit (a refill every few hundred nanoseconds) a tolerance of 30
        // refills is shorter than a thread's scheduling delay between reading the clock
        // and taking the token, and requests far below the limit were refused.
        let per_second = events
            .get()
            .div_ceil(u32::try_from(period.as_secs().max(1)).unwrap_or(u32::MAX));
        let burst = NonZeroU32::new(events.get().min(MAX_BURST.max(per_second))).unwrap_or(events);
        let quota = Quota::with_period(period / events.get())
            .unwrap_or_else(|| Quota::per_second(events))
            .allow_burst(burst);
        Self(Some(RateLimiter::keyed(quota)))
    }

    fn allow(&self, key: &str) -> bool {
        match &self.0 {
            Some(limiter) => limiter.check_key(&key.to_owned()).is_ok(),
            None => false,
        }
    }

    fn forget_idle(&self) {
        if let Some(limiter) = &self.0 {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

/// All of auth/v1's limiters.
#[derive(Debug)]
pub struct RateLimits {
    token: Bucket,
    verify: Bucket,
    otp: Bucket,
    anonymous: Bucket,
    mfa_challenge: Bucket,
    mfa_verify: Bucket,
    email_sent: Bucket,
}

const FIVE_MINUTES: Duration = Duration::from_secs(300);
const HOUR: Duration = Duration::from_secs(3600);
const MINUTE: Duration = Duration::from_secs(60);

impl RateLimits {
    pub fn new(settings: &AuthRateLimits) -> Self {
        Self {
            token: Bucket::new(settings.token_per_5_min, FIVE_MINUTES),
            verify: Bucket::new(settings.verify_per_5_min, FIVE_MINUTES),
            otp: Bucket::new(settings.otp_per_5_min, FIVE_MINUTES),
            anonymous: Bucket::new(settings.anonymous_per_hour, HOUR),
            mfa_challenge: Bucket::new(settings.mfa_per_minute, MINUTE),
            mfa_verify: Bucket::new(settings.mfa_per_minute, MINUTE),
            email_sent: Bucket::new(settings.email_sent_per_hour, HOUR),
        }
    }

    fn bucket(&self, limit: Limit) -> &Bucket {
        match limit {
            Limit::Token => &self.token,
            Limit::Verify => &self.verify,
            Limit::Otp => &self.otp,
            Limit::Anonymous => &self.anonymous,
            Limit::MfaChallenge => &self.mfa_challenge,
            Limit::MfaVerify => &self.mfa_verify,
        }
    }

    /// Takes one request from the client's bucket and, when given, the address's bucket.
    pub fn allow_request(&self, limit: Limit, client: &str, email: Option<&str>) -> bool {
        let bucket = self.bucket(limit);
        let by_client = bucket.allow(&format!("ip:{client}"));
        let by_email = match email.filter(|email| !email.is_empty()) {
            Some(email) => bucket.allow(&format!("email:{}", email.to_lowercase())),
            None => true,
        };
        by_client && by_email
    }

    /// Takes one mail from the recipient's hourly allowance.
    pub fn allow_email(&self, recipient: &str) -> bool {
        self.email_sent.allow(&recipient.to_lowercase())
    }

    /// Drops buckets that are full again (run periodically to bound memory).
    pub fn forget_idle(&self) {
        for bucket in [
            &self.token,
            &self.verify,
            &self.otp,
            &self.anonymous,
            &self.mfa_challenge,
            &self.mfa_verify,
            &self.email_sent,
        ] {
            bucket.forget_idle();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_far_above_the_load_never_refuses_concurrent_requests() {
        let limits = std::sync::Arc::new(limits(1_000_000_000, 30));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let limits = limits.clone();
                std::thread::spawn(move || {
                    (0..20_000)
                        .filter(|_| !limits.allow_request(Limit::Token, "127.0.0.1", None))
                        .count()
                })
            })
            .collect();
        let refused: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(refused, 0);
    }

    fn limits(token: u32, email: u32) -> RateLimits {
        RateLimits::new(&AuthRateLimits {
            email_sent_per_hour: email,
            token_per_5_min: token,
            verify_per_5_min: 30,
            otp_per_5_min: 30,
            anonymous_per_hour: 30,
            mfa_per_minute: 15,
            header: None,
        })
    }

    #[test]
    fn a_client_gets_its_allowance_then_429() {
        let limits = limits(3, 30);
        for _ in 0..3 {
            assert!(limits.allow_request(Limit::Token, "10.0.0.1", None));
        }
        assert!(!limits.allow_request(Limit::Token, "10.0.0.1", None));
        // Another client has its own bucket.
        assert!(limits.allow_request(Limit::Token, "10.0.0.2", None));
    }

    #[test]
    fn bursts_are_capped_at_thirty() {
        let limits = limits(150, 30);
        let allowed = (0..40)
            .filter(|_| limits.allow_request(Limit::Token, "c", None))
            .count();
        assert_eq!(allowed, 30);
    }

    #[test]
    fn the_same_email_from_many_addresses_is_limited() {
        let limits = limits(2, 30);
        assert!(limits.allow_request(Limit::Token, "a", Some("Ana@colegio.cl")));
        assert!(limits.allow_request(Limit::Token, "b", Some("ana@colegio.cl")));
        assert!(!limits.allow_request(Limit::Token, "c", Some("ana@colegio.cl")));
    }

    #[test]
    fn mails_per_recipient_and_zero_means_none() {
        let limits = limits(10, 2);
        assert!(limits.allow_email("x@y.cl"));
        assert!(limits.allow_email("X@y.cl"));
        assert!(!limits.allow_email("x@y.cl"));
        assert!(limits.allow_email("z@y.cl"));
        let none = self::limits(10, 0);
        assert!(!none.allow_email("x@y.cl"));
        limits.forget_idle();
    }
}
