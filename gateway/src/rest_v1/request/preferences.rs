//! The `Prefer` header, as PostgREST reads it: comma-separated tokens across all `Prefer`
//! headers, matched exactly; the first token of each kind wins; anything else is invalid
//! (an error only with `handling=strict`).

use crate::rest_v1::error::ApiError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    MergeDuplicates,
    IgnoreDuplicates,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Return {
    Representation,
    Minimal,
    HeadersOnly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Exact,
    Planned,
    Estimated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tx {
    Commit,
    Rollback,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    Default,
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    Strict,
    Lenient,
}

/// Which operation the preferences apply to (some are only echoed for some).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Read,
    Insert,
    Update,
    Upsert,
    Delete,
    Call,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preferences {
    pub resolution: Option<Resolution>,
    pub representation: Option<Return>,
    pub count: Option<Count>,
    pub tx: Option<Tx>,
    pub missing: Option<Missing>,
    pub handling: Option<Handling>,
    /// `timezone=<value>`; the value may be empty or invalid (the database decides).
    pub timezone: Option<String>,
    /// `max-affected=<n>`; `Some(None)` when given but unparsable.
    pub max_affected: Option<Option<i64>>,
    /// `params=single-object`: the whole JSON body is the argument of a function with one
    /// `json`/`jsonb` parameter (PostgREST ≤ 12; still sent by older clients).
    pub single_object: bool,
    pub invalid: Vec<String>,
}

const WHITESPACE: &[char] = &[' ', '\t', '\n', '\r', '\u{c}', '\u{b}', '\u{a0}'];

impl Preferences {
    /// Parses the values of every `Prefer` header, in order.
    pub fn parse<'a>(headers: impl IntoIterator<Item = &'a str>) -> Self {
        let mut preferences = Preferences::default();
        for header in headers {
            if header.is_empty() {
                continue;
            }
            for token in header.split(',') {
                preferences.apply(token.trim_matches(WHITESPACE));
            }
        }
        preferences
    }

    fn apply(&mut self, token: &str) {
        fn first<T>(slot: &mut Option<T>, value: T) {
            if slot.is_none() {
                *slot = Some(value);
            }
        }
        match token {
            "resolution=merge-duplicates" => {
                first(&mut self.resolution, Resolution::MergeDuplicates)
            }
            "resolution=ignore-duplicates" => {
                first(&mut self.resolution, Resolution::IgnoreDuplicates)
            }
            "return=representation" => first(&mut self.representation, Return::Representation),
            "return=minimal" => first(&mut self.representation, Return::Minimal),
            "return=headers-only" => first(&mut self.representation, Return::HeadersOnly),
            "count=exact" => first(&mut self.count, Count::Exact),
            "count=planned" => first(&mut self.count, Count::Planned),
            "count=estimated" => first(&mut self.count, Count::Estimated),
            "tx=commit" => first(&mut self.tx, Tx::Commit),
            "tx=rollback" => first(&mut self.tx, Tx::Rollback),
            "missing=default" => first(&mut self.missing, Missing::Default),
            "missing=null" => first(&mut self.missing, Missing::Null),
            "handling=strict" => first(&mut self.handling, Handling::Strict),
            "handling=lenient" => first(&mut self.handling, Handling::Lenient),
            "params=single-object" => self.single_object = true,
            _ => {
                if let Some(zone) = token.strip_prefix("timezone=") {
                    first(&mut self.timezone, zone.to_owned());
                } else if let Some(number) = token.strip_prefix("max-affected=") {
                    first(&mut self.max_affected, number.trim().parse::<i64>().ok());
                } else {
                    self.invalid.push(token.to_owned());
                }
            }
        }
    }

    pub fn strict(&self) -> bool {
        self.handling == Some(Handling::Strict)
    }

    /// PGRST122 when `handling=strict` and some token was not understood.
    pub fn check_strict(&self) -> Result<(), ApiError> {
        if self.strict() && !self.invalid.is_empty() {
            return Err(ApiError::InvalidPreferences(self.invalid.clone()));
        }
        Ok(())
    }

    /// The effective `max-affected` (only with `handling=strict`).
    pub fn max_affected(&self) -> Option<i64> {
        if self.strict() {
            self.max_affected.flatten()
        } else {
            None
        }
    }

    /// `Preference-Applied` value, in PostgREST's order; `None` when nothing applies.
    /// `resolution_applies`: POST on a relation with a primary key or `on_conflict`.
    pub fn applied(
        &self,
        action: Action,
        tx_override_allowed: bool,
        resolution_applies: bool,
    ) -> Option<String> {
        let mut applied: Vec<String> = Vec::new();
        let writes = matches!(
            action,
            Action::Insert | Action::Update | Action::Upsert | Action::Delete
        );
        if action == Action::Insert && resolution_applies {
            applied.extend(self.resolution.map(|r| {
                match r {
                    Resolution::MergeDuplicates => "resolution=merge-duplicates",
                    Resolution::IgnoreDuplicates => "resolution=ignore-duplicates",
                }
                .to_owned()
            }));
        }
        if matches!(action, Action::Insert | Action::Update) {
            applied.extend(self.missing.map(|m| {
                match m {
                    Missing::Default => "missing=default",
                    Missing::Null => "missing=null",
                }
                .to_owned()
            }));
        }
        if writes {
            applied.extend(self.representation.map(|r| {
                match r {
                    Return::Representation => "return=representation",
                    Return::Minimal => "return=minimal",
                    Return::HeadersOnly => "return=headers-only",
                }
                .to_owned()
            }));
        }
        applied.extend(self.count.map(|c| {
            match c {
                Count::Exact => "count=exact",
                Count::Planned => "count=planned",
                Count::Estimated => "count=estimated",
            }
            .to_owned()
        }));
        if tx_override_allowed {
            applied.extend(self.tx.map(|t| {
                match t {
                    Tx::Commit => "tx=commit",
                    Tx::Rollback => "tx=rollback",
                }
                .to_owned()
            }));
        }
        applied.extend(self.handling.map(|h| {
            match h {
                Handling::Strict => "handling=strict",
                Handling::Lenient => "handling=lenient",
            }
            .to_owned()
        }));
        applied.extend(
            self.timezone
                .as_ref()
                .map(|zone| format!("timezone={zone}")),
        );
        if matches!(action, Action::Update | Action::Delete | Action::Call)
            && let Some(n) = self.max_affected()
        {
            applied.push(format!("max-affected={n}"));
        }
        (!applied.is_empty()).then(|| applied.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_token_of_each_kind_wins() {
        let p = Preferences::parse([
            "tx=commit, tx=rollback",
            "count=exact,return=representation",
        ]);
        assert_eq!(p.tx, Some(Tx::Commit));
        assert_eq!(p.count, Some(Count::Exact));
        assert_eq!(p.representation, Some(Return::Representation));
        assert!(p.invalid.is_empty());
    }

    #[test]
    fn strict_handling_rejects_unknown_tokens() {
        let p = Preferences::parse(["handling=strict", "something, else"]);
        let error = p.check_strict().unwrap_err();
        assert_eq!(
            error.body()["details"],
            "Invalid preferences: something, else"
        );
        assert_eq!(error.code(), "PGRST122");
        let p = Preferences::parse(["count=none, Count=Exact"]);
        assert_eq!(p.invalid, ["count=none", "Count=Exact"]);
        assert!(p.check_strict().is_ok());
    }

    #[test]
    fn applied_follows_postgrests_order() {
        let p = Preferences::parse([
            "return=representation, missing=default, resolution=ignore-duplicates",
        ]);
        assert_eq!(
            p.applied(Action::Insert, false, true).as_deref(),
            Some("resolution=ignore-duplicates, missing=default, return=representation")
        );
        assert_eq!(p.applied(Action::Read, false, false), None);
        let p = Preferences::parse(["count=exact"]);
        assert_eq!(
            p.applied(Action::Read, false, false).as_deref(),
            Some("count=exact")
        );
        let p = Preferences::parse(["handling=strict, max-affected=10"]);
        assert_eq!(
            p.applied(Action::Delete, false, false).as_deref(),
            Some("handling=strict, max-affected=10")
        );
        let p = Preferences::parse(["tx=rollback"]);
        assert_eq!(p.applied(Action::Read, false, false), None);
        assert_eq!(
            p.applied(Action::Read, true, false).as_deref(),
            Some("tx=rollback")
        );
    }

    #[test]
    fn timezone_and_max_affected_take_the_first_prefixed_token() {
        let p = Preferences::parse(["max-affected=abc, max-affected=5, timezone=America/Santiago"]);
        assert_eq!(p.max_affected, Some(None));
        assert_eq!(p.timezone.as_deref(), Some("America/Santiago"));
    }
}
