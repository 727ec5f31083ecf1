//! The status block, like `supabase status`: where everything is and which keys to use.

use secrecy::ExposeSecret;

use crate::config::Settings;
use crate::keys::ApiKeys;

/// Everything `status` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusInfo {
    pub api_url: String,
    pub web_url: String,
    pub db_url: String,
    pub inbox_url: Option<String>,
    pub jwt_secret: String,
    pub anon_key: String,
    pub service_role_key: String,
    pub publishable_key: String,
    pub secret_key: String,
}

/// Output formats of `cielo status -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Aligned labels, for people.
    Pretty,
    /// `KEY="value"` lines, for `eval` and `.env` files.
    Env,
}

impl StatusInfo {
    pub fn new(settings: &Settings, keys: &ApiKeys) -> Self {
        let api_url = settings.api_url();
        Self {
            web_url: api_url.clone(),
            inbox_url: settings
                .dev_inbox_enabled()
                .then(|| format!("{api_url}/inbox")),
            api_url,
            db_url: settings.admin_database_url().expose_secret().to_owned(),
            jwt_secret: keys.jwt_secret().expose_secret().to_owned(),
            anon_key: keys.anon_key().to_owned(),
            service_role_key: keys.service_role_key().expose_secret().to_owned(),
            publishable_key: keys.publishable_key().to_owned(),
            secret_key: keys.secret_key().expose_secret().to_owned(),
        }
    }

    fn rows(&self) -> Vec<(&'static str, &'static str, String)> {
        vec![
            ("API URL", "API_URL", self.api_url.clone()),
            ("Web URL", "WEB_URL", self.web_url.clone()),
            ("DB URL", "DB_URL", self.db_url.clone()),
            (
                "Inbox URL",
                "INBOX_URL",
                self.inbox_url
                    .clone()
                    .unwrap_or_else(|| "disabled (SMTP_HOST is set)".to_owned()),
            ),
            ("JWT secret", "JWT_SECRET", self.jwt_secret.clone()),
            ("anon key", "ANON_KEY", self.anon_key.clone()),
            (
                "service_role key",
                "SERVICE_ROLE_KEY",
                self.service_role_key.clone(),
            ),
            (
                "Publishable key",
                "PUBLISHABLE_KEY",
                self.publishable_key.clone(),
            ),
            ("Secret key", "SECRET_KEY", self.secret_key.clone()),
        ]
    }

    pub fn render(&self, format: OutputFormat) -> String {
        let rows = self.rows();
        match format {
            OutputFormat::Pretty => {
                let width = rows
                    .iter()
                    .map(|(label, _, _)| label.len())
                    .max()
                    .unwrap_or(0);
                rows.iter()
                    .map(|(label, _, value)| format!("{label:>width$}: {value}\n"))
                    .collect()
            }
            OutputFormat::Env => rows
                .iter()
                .map(|(_, name, value)| format!("{name}=\"{}\"\n", value.replace('"', "\\\"")))
                .collect(),
        }
    }
}

/// Printed once the server listens.
#[allow(clippy::print_stdout)]
pub fn print_started(status: &StatusInfo) {
    println!(
        "\nCielo is running. Stop it with Ctrl-C.\n\n{}",
        status.render(OutputFormat::Pretty)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> StatusInfo {
        let settings = Settings::from_lookup(|name| match name {
            "JWT_SECRET" => Some("super-secret-jwt-token-with-at-least-32-characters-long".into()),
            _ => None,
        })
        .unwrap();
        StatusInfo::new(&settings, &ApiKeys::load(&settings).unwrap())
    }

    #[test]
    fn pretty_output_aligns_labels_like_supabase_status() {
        let text = sample().render(OutputFormat::Pretty);
        assert!(text.contains("         API URL: http://localhost:54321\n"));
        assert!(text.contains(
            "          DB URL: postgresql://postgres:postgres@127.0.0.1:54322/postgres\n"
        ));
        assert!(text.contains("       Inbox URL: http://localhost:54321/inbox\n"));
        assert!(text.contains("service_role key: eyJ"));
        assert!(text.contains("      JWT secret: super-secret-jwt-token"));
    }

    #[test]
    fn env_output_is_shell_readable() {
        let text = sample().render(OutputFormat::Env);
        assert!(text.contains("API_URL=\"http://localhost:54321\"\n"));
        assert!(text.contains("ANON_KEY=\"eyJ"));
        assert!(text.contains("PUBLISHABLE_KEY=\"sb_publishable_"));
        assert_eq!(text.lines().count(), 9);
        assert!(
            text.lines()
                .all(|line| line.contains("=\"") && line.ends_with('"'))
        );
    }
}
