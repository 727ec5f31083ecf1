//! The status block, like `supabase status`: where everything is and which keys to use.

use secrecy::ExposeSecret;

use crate::config::Settings;
use crate::db::seed::{DEMO_ACCOUNTS, DEMO_PASSWORD};
use crate::identity::ProjectKeys;

/// Everything `status` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusInfo {
    pub api_url: String,
    /// realtime/v1's websocket (what supabase-js derives from the API URL).
    pub realtime_url: String,
    pub web_url: String,
    pub db_url: String,
    pub inbox_url: Option<String>,
    pub jwt_secret: String,
    pub anon_key: String,
    pub service_role_key: String,
    pub publishable_key: String,
    pub secret_key: String,
    /// The demo accounts, when the demo seed is on (SEED_DEMO).
    pub demo_accounts: bool,
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
    pub fn new(settings: &Settings, keys: &ProjectKeys) -> Self {
        let api_url = settings.api_url();
        Self {
            realtime_url: format!(
                "{}/realtime/v1",
                api_url
                    .replacen("https://", "wss://", 1)
                    .replacen("http://", "ws://", 1)
            ),
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
            demo_accounts: settings.seed_demo,
        }
    }

    fn rows(&self) -> Vec<(&'static str, &'static str, String)> {
        let mut rows = vec![
            ("API URL", "API_URL", self.api_url.clone()),
            ("Realtime URL", "REALTIME_URL", self.realtime_url.clone()),
            ("Web URL", "WEB_URL", self.web_url.clone()),
            ("DB URL", "DB_URL", self.db_url.clone()),
            (
                "Inbox URL",
                "INBOX_URL",
                self.inbox_url
                    .clone()
                    .unwrap_or_else(|| "disabled (SMTP_HOST is set)".to_owned()),
            ),
        ];
        // Before the keys: "Secret key" stays the last line, which harnesses wait for.
        if self.demo_accounts {
            rows.extend(
                DEMO_ACCOUNTS
                    .iter()
                    .map(|account| (account.label, account.env_name, account.email.to_owned())),
            );
            rows.push(("Demo password", "DEMO_PASSWORD", DEMO_PASSWORD.to_owned()));
        }
        rows.extend([
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
        ]);
        rows
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
        sample_with_seed("false")
    }

    fn sample_with_seed(seed_demo: &str) -> StatusInfo {
        let settings = Settings::from_lookup(|name| match name {
            "JWT_SECRET" => Some("super-secret-jwt-token-with-at-least-32-characters-long".into()),
            "SEED_DEMO" => Some(seed_demo.into()),
            _ => None,
        })
        .unwrap();
        StatusInfo::new(&settings, &ProjectKeys::load(&settings).unwrap())
    }

    #[test]
    fn pretty_output_aligns_labels_like_supabase_status() {
        let text = sample().render(OutputFormat::Pretty);
        assert!(text.contains("         API URL: http://localhost:54321\n"));
        assert!(text.contains(
            "          DB URL: postgresql://postgres:postgres@127.0.0.1:54322/postgres\n"
        ));
        assert!(text.contains("       Inbox URL: http://localhost:54321/inbox\n"));
        assert!(text.contains("    Realtime URL: ws://localhost:54321/realtime/v1\n"));
        assert!(text.contains("service_role key: eyJ"));
        assert!(text.contains("      JWT secret: super-secret-jwt-token"));
    }

    #[test]
    fn env_output_is_shell_readable() {
        let text = sample().render(OutputFormat::Env);
        assert!(text.contains("API_URL=\"http://localhost:54321\"\n"));
        assert!(text.contains("ANON_KEY=\"eyJ"));
        assert!(text.contains("PUBLISHABLE_KEY=\"sb_publishable_"));
        assert_eq!(text.lines().count(), 10);
        assert!(
            text.lines()
                .all(|line| line.contains("=\"") && line.ends_with('"'))
        );
    }

    #[test]
    fn the_demo_accounts_are_listed_when_the_seed_is_on() {
        let info = sample_with_seed("true");
        let pretty = info.render(OutputFormat::Pretty);
        assert!(pretty.contains("    Demo teacher: docente.demo@cielo.test\n"));
        assert!(pretty.contains("      Demo admin: admin.demo@cielo.test\n"));
        assert!(pretty.contains("    Demo creator: contenido.demo@cielo.test\n"));
        assert!(pretty.contains("   Demo password: cielo-demo-2025\n"));
        assert!(pretty.contains("         API URL: http://localhost:54321\n"));
        assert!(
            pretty.ends_with('\n')
                && pretty
                    .lines()
                    .last()
                    .unwrap()
                    .starts_with("      Secret key: ")
        );
        let env = info.render(OutputFormat::Env);
        assert!(env.contains("DEMO_TEACHER_EMAIL=\"docente.demo@cielo.test\"\n"));
        assert!(env.contains("DEMO_PASSWORD=\"cielo-demo-2025\"\n"));
        assert_eq!(env.lines().count(), 14);
        assert!(!sample().render(OutputFormat::Pretty).contains("Demo"));
    }
}
