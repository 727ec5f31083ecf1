//! Effective rest/v1 settings: the environment, overridden by PostgREST's in-database
//! configuration (`ALTER ROLE authenticator SET pgrst.db_max_rows = '100'` and friends),
//! which takes precedence as in PostgREST and is re-read with every schema-cache reload.

use std::collections::HashMap;

use crate::config::RestSettings;

/// How a request's transaction ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxEnd {
    Commit,
    CommitAllowOverride,
    Rollback,
    RollbackAllowOverride,
}

impl TxEnd {
    fn parse(raw: &str) -> Option<Self> {
        Some(match raw {
            "commit" => TxEnd::Commit,
            "commit-allow-override" => TxEnd::CommitAllowOverride,
            "rollback" => TxEnd::Rollback,
            "rollback-allow-override" => TxEnd::RollbackAllowOverride,
            _ => return None,
        })
    }

    /// Whether `Prefer: tx=commit|rollback` is honoured.
    pub fn allows_override(self) -> bool {
        matches!(
            self,
            TxEnd::CommitAllowOverride | TxEnd::RollbackAllowOverride
        )
    }

    pub fn rolls_back_by_default(self) -> bool {
        matches!(self, TxEnd::Rollback | TxEnd::RollbackAllowOverride)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestConfig {
    pub schemas: Vec<String>,
    pub extra_search_path: Vec<String>,
    pub max_rows: Option<u64>,
    pub anon_role: String,
    pub aggregates_enabled: bool,
    pub plan_enabled: bool,
    pub tx_end: TxEnd,
    pub pre_request: Option<String>,
}

impl RestConfig {
    /// Environment settings with `pgrst.*` in-database values applied on top. Unparsable
    /// in-database values are ignored (with a warning), keeping the environment's.
    pub fn new(settings: &RestSettings, in_database: &HashMap<String, String>) -> Self {
        let mut config = RestConfig {
            schemas: settings.schemas.clone(),
            extra_search_path: settings.extra_search_path.clone(),
            max_rows: settings.max_rows,
            anon_role: settings.anon_role.clone(),
            aggregates_enabled: settings.aggregates_enabled,
            plan_enabled: settings.plan_enabled,
            tx_end: TxEnd::parse(&settings.tx_end).unwrap_or(TxEnd::Commit),
            pre_request: settings.pre_request.clone(),
        };
        for (name, value) in in_database {
            let value = value.trim();
            let applied = match name.as_str() {
                "pgrst.db_schemas" => non_empty_list(value).map(|list| config.schemas = list),
                "pgrst.db_extra_search_path" => {
                    config.extra_search_path = list(value);
                    Some(())
                }
                "pgrst.db_max_rows" => value
                    .parse::<u64>()
                    .ok()
                    .map(|rows| config.max_rows = (rows > 0).then_some(rows)),
                "pgrst.db_anon_role" => {
                    config.anon_role = value.to_owned();
                    Some(())
                }
                "pgrst.db_aggregates_enabled" => {
                    flag(value).map(|enabled| config.aggregates_enabled = enabled)
                }
                "pgrst.db_plan_enabled" => flag(value).map(|enabled| config.plan_enabled = enabled),
                "pgrst.db_tx_end" => TxEnd::parse(value).map(|end| config.tx_end = end),
                "pgrst.db_pre_request" => {
                    config.pre_request = Some(value.to_owned()).filter(|v| !v.is_empty());
                    Some(())
                }
                _ => Some(()),
            };
            if applied.is_none() {
                tracing::warn!(setting = %name, %value, "ignoring invalid in-database setting");
            }
        }
        config
    }
}

fn list(raw: &str) -> Vec<String> {
    raw.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

fn non_empty_list(raw: &str) -> Option<Vec<String>> {
    Some(list(raw)).filter(|items| !items.is_empty())
}

fn flag(raw: &str) -> Option<bool> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "1" | "yes" => Some(true),
        "false" | "off" | "0" | "no" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    fn env() -> RestSettings {
        Settings::from_lookup(|_| None).unwrap().rest
    }

    #[test]
    fn in_database_settings_override_the_environment() {
        let db = HashMap::from([
            ("pgrst.db_aggregates_enabled".to_owned(), "true".to_owned()),
            (
                "pgrst.db_tx_end".to_owned(),
                "commit-allow-override".to_owned(),
            ),
            ("pgrst.db_max_rows".to_owned(), "50".to_owned()),
            ("pgrst.db_schemas".to_owned(), "public, personal".to_owned()),
        ]);
        let config = RestConfig::new(&env(), &db);
        assert!(config.aggregates_enabled);
        assert_eq!(config.tx_end, TxEnd::CommitAllowOverride);
        assert!(config.tx_end.allows_override());
        assert_eq!(config.max_rows, Some(50));
        assert_eq!(config.schemas, ["public", "personal"]);
    }

    #[test]
    fn invalid_values_keep_the_environment() {
        let db = HashMap::from([
            ("pgrst.db_aggregates_enabled".to_owned(), "maybe".to_owned()),
            ("pgrst.db_tx_end".to_owned(), "sometimes".to_owned()),
            ("pgrst.db_schemas".to_owned(), " ".to_owned()),
        ]);
        let config = RestConfig::new(&env(), &db);
        assert!(!config.aggregates_enabled);
        assert_eq!(config.tx_end, TxEnd::Commit);
        assert_eq!(config.schemas, ["public"]);
    }
}
