//! Sending the auth mails: a real SMTP server (`SMTP_HOST`, via lettre) or, without one,
//! the development inbox (`cielo.dev_mail`, shown at `/inbox`).
//!
//! A mail is sent inside the request's transaction, as GoTrue does: the dev inbox row is
//! part of it, and an SMTP failure rolls the whole request back (the user can simply ask
//! again), so there is never a token in the database whose mail was lost.
//!
//! SMTP: port 465 speaks TLS from the first byte; other ports upgrade with STARTTLS when
//! the server offers it (GoTrue's behaviour), with certificates checked against the web
//! PKI roots. Credentials are `SMTP_USER` / `SMTP_PASS`.

pub mod templates;

use deadpool_postgres::Transaction;
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use secrecy::ExposeSecret;

use crate::config::SmtpSettings;
use templates::Rendered;

/// Where mail goes.
#[derive(Clone)]
pub enum Mailer {
    DevInbox {
        sender: String,
    },
    Smtp {
        transport: AsyncSmtpTransport<Tokio1Executor>,
        sender: Mailbox,
    },
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mailer::DevInbox { .. } => f.write_str("Mailer::DevInbox"),
            Mailer::Smtp { sender, .. } => write!(f, "Mailer::Smtp(from {sender})"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("invalid SMTP settings: {0}")]
    Settings(String),
    #[error("could not build the message: {0}")]
    Message(String),
    #[error("SMTP delivery failed: {0}")]
    Smtp(String),
    #[error("could not store the message in the dev inbox: {0}")]
    Inbox(#[from] tokio_postgres::Error),
}

impl Mailer {
    pub fn from_settings(smtp: &SmtpSettings) -> Result<Self, MailError> {
        let sender_text = format!("{} <{}>", smtp.sender_name, smtp.admin_email);
        let Some(host) = &smtp.host else {
            return Ok(Mailer::DevInbox {
                sender: sender_text,
            });
        };
        let sender: Mailbox = sender_text
            .parse()
            .map_err(|error| MailError::Settings(format!("SMTP_ADMIN_EMAIL: {error}")))?;
        let tls_parameters = TlsParameters::new(host.clone())
            .map_err(|error| MailError::Settings(format!("TLS for {host}: {error}")))?;
        let tls = if smtp.port == 465 {
            Tls::Wrapper(tls_parameters)
        } else {
            Tls::Opportunistic(tls_parameters)
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host.as_str())
            .port(smtp.port)
            .tls(tls)
            .timeout(Some(std::time::Duration::from_secs(20)));
        if let Some(user) = &smtp.user {
            let pass = smtp
                .pass
                .as_ref()
                .map(|pass| pass.expose_secret().to_owned())
                .unwrap_or_default();
            builder = builder.credentials(Credentials::new(user.clone(), pass));
        }
        Ok(Mailer::Smtp {
            transport: builder.build(),
            sender,
        })
    }

    pub fn is_dev_inbox(&self) -> bool {
        matches!(self, Mailer::DevInbox { .. })
    }

    /// Sends (or stores) one mail as part of `tx`.
    pub async fn send(
        &self,
        tx: &Transaction<'_>,
        recipient: &str,
        mail: &Rendered,
    ) -> Result<(), MailError> {
        match self {
            Mailer::DevInbox { sender } => {
                let statement = tx
                    .prepare_cached(
                        "INSERT INTO cielo.dev_mail (recipient, sender, subject, text_body, html_body)
                         VALUES ($1, $2, $3, $4, $5)",
                    )
                    .await?;
                tx.execute(
                    &statement,
                    &[&recipient, sender, &mail.subject, &mail.text, &mail.html],
                )
                .await?;
                tracing::info!(%recipient, subject = %mail.subject, "mail stored in the dev inbox");
                Ok(())
            }
            Mailer::Smtp { transport, sender } => {
                let to: Mailbox = recipient
                    .parse()
                    .map_err(|error| MailError::Message(format!("recipient: {error}")))?;
                let message = Message::builder()
                    .from(sender.clone())
                    .to(to)
                    .subject(mail.subject.clone())
                    .multipart(MultiPart::alternative_plain_html(
                        mail.text.clone(),
                        mail.html.clone(),
                    ))
                    .map_err(|error| MailError::Message(error.to_string()))?;
                transport
                    .send(message)
                    .await
                    .map_err(|error| MailError::Smtp(error.to_string()))?;
                tracing::info!(%recipient, subject = %mail.subject, "mail sent");
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smtp(host: Option<&str>, port: u16) -> SmtpSettings {
        SmtpSettings {
            host: host.map(str::to_owned),
            port,
            user: Some("user".into()),
            pass: Some(secrecy::SecretString::from("pass".to_owned())),
            admin_email: "no-reply@cielo.cl".into(),
            sender_name: "Cielo".into(),
        }
    }

    #[tokio::test]
    async fn without_smtp_host_mail_goes_to_the_dev_inbox() {
        assert!(
            Mailer::from_settings(&smtp(None, 587))
                .unwrap()
                .is_dev_inbox()
        );
        let mailer = Mailer::from_settings(&smtp(Some("smtp.example.org"), 465)).unwrap();
        assert!(!mailer.is_dev_inbox());
        assert!(format!("{mailer:?}").contains("no-reply@cielo.cl"));
        let mut bad = smtp(Some("smtp.example.org"), 587);
        bad.admin_email = "not an address".into();
        assert!(Mailer::from_settings(&bad).is_err());
    }
}
