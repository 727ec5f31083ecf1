//! The development inbox: mail that auth/v1 sends when no SMTP server is configured is kept
//! in `cielo.dev_mail` and shown here, like Inbucket/Mailpit in Supabase local development.
//!
//! * `GET /inbox`: the page (newest first).
//! * `GET /inbox/messages/{id}`: one message's HTML body, sandboxed (no scripts).
//! * `GET /inbox/api/messages[?recipient=]`, `GET /inbox/api/messages/{id}` (each message
//!   with its `links`),
//!   `DELETE /inbox/api/messages`: JSON for tests and tools.
//!
//! Mail holds sign-in links, so the inbox answers only loopback clients unless
//! `INBOX_ALLOW_REMOTE=true`, and it does not exist at all once `SMTP_HOST` is set.

use actix_web::http::header;
use actix_web::middleware::DefaultHeaders;
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::mail::templates::escape_html;
use crate::state::AppState;

pub fn routes(config: &mut web::ServiceConfig) {
    config.service(
        web::scope("/inbox")
            // Mail changes with every sign-up: nothing of the inbox is kept by a browser.
            .wrap(DefaultHeaders::new().add((header::CACHE_CONTROL, "no-store")))
            .route("", web::get().to(page))
            .route("/", web::get().to(page))
            .route("/messages/{id}", web::get().to(message_html))
            .route("/api/messages", web::get().to(list))
            .route("/api/messages", web::delete().to(clear))
            .route("/api/messages/{id}", web::get().to(message_json)),
    );
}

/// A stored message.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct MailMessage {
    pub id: i64,
    pub recipient: String,
    pub sender: String,
    pub subject: String,
    pub text_body: String,
    pub html_body: String,
    pub created_at: DateTime<Utc>,
    /// The link targets of the HTML body (confirmation links, for tests and tools).
    pub links: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct ListQuery {
    recipient: Option<String>,
}

/// The answer for a client that may not see the inbox, if this one may not.
fn refusal(request: &HttpRequest, state: &AppState) -> Option<HttpResponse> {
    if !state.settings.dev_inbox_enabled() {
        return Some(HttpResponse::NotFound().json(json!({
            "message": "The development inbox is disabled because SMTP_HOST is set."
        })));
    }
    let loopback = request
        .peer_addr()
        .is_some_and(|peer| peer.ip().is_loopback());
    if loopback || state.settings.api.inbox_allow_remote {
        None
    } else {
        Some(HttpResponse::Forbidden().json(json!({
            "message": "The development inbox only answers local clients (set INBOX_ALLOW_REMOTE=true to change this)."
        })))
    }
}

async fn load(
    state: &AppState,
    recipient: Option<&str>,
    id: Option<i64>,
) -> Result<Vec<MailMessage>, String> {
    let client = state.db.owner.get().await.map_err(|e| e.to_string())?;
    let rows = client
        .query(
            "SELECT id, recipient, sender, subject, text_body, html_body, created_at
               FROM cielo.dev_mail
              WHERE ($1::text IS NULL OR lower(recipient) = lower($1))
                AND ($2::bigint IS NULL OR id = $2)
              ORDER BY created_at DESC, id DESC
              LIMIT 200",
            &[&recipient, &id],
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(rows
        .iter()
        .map(|row| {
            let html_body: String = row.get(5);
            MailMessage {
                id: row.get(0),
                recipient: row.get(1),
                sender: row.get(2),
                subject: row.get(3),
                text_body: row.get(4),
                links: crate::mail::templates::links(&html_body),
                html_body,
                created_at: row.get(6),
            }
        })
        .collect())
}

fn internal(error: impl std::fmt::Display) -> HttpResponse {
    tracing::error!(%error, "dev inbox query failed");
    HttpResponse::InternalServerError().json(json!({"message": "inbox unavailable"}))
}

async fn list(
    request: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<ListQuery>,
) -> HttpResponse {
    if let Some(response) = refusal(&request, &state) {
        return response;
    }
    match load(&state, query.recipient.as_deref(), None).await {
        Ok(messages) => HttpResponse::Ok().json(messages),
        Err(error) => internal(error),
    }
}

async fn message_json(
    request: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> HttpResponse {
    if let Some(response) = refusal(&request, &state) {
        return response;
    }
    match load(&state, None, Some(*id)).await {
        Ok(messages) => match messages.into_iter().next() {
            Some(message) => HttpResponse::Ok().json(message),
            None => HttpResponse::NotFound().json(json!({"message": "message not found"})),
        },
        Err(error) => internal(error),
    }
}

async fn message_html(
    request: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> HttpResponse {
    if let Some(response) = refusal(&request, &state) {
        return response;
    }
    match load(&state, None, Some(*id)).await {
        Ok(messages) => match messages.into_iter().next() {
            Some(message) => HttpResponse::Ok()
                .content_type("text/html; charset=utf-8")
                // The body came from a template with user input in it: no scripts, no forms.
                .insert_header((header::CONTENT_SECURITY_POLICY, "sandbox allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation"))
                .body(if message.html_body.is_empty() {
                    format!("<pre>{}</pre>", escape_html(&message.text_body))
                } else {
                    message.html_body
                }),
            None => HttpResponse::NotFound().body("message not found"),
        },
        Err(error) => internal(error),
    }
}

async fn clear(request: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    if let Some(response) = refusal(&request, &state) {
        return response;
    }
    let result = async {
        let client = state.db.owner.get().await.map_err(|e| e.to_string())?;
        client
            .execute("DELETE FROM cielo.dev_mail", &[])
            .await
            .map_err(|e| e.to_string())
    }
    .await;
    match result {
        Ok(_) => HttpResponse::NoContent().finish(),
        Err(error) => internal(error),
    }
}

async fn page(request: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    if let Some(response) = refusal(&request, &state) {
        return response;
    }
    let messages = match load(&state, None, None).await {
        Ok(messages) => messages,
        Err(error) => return internal(error),
    };
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(render_page(&messages))
}

fn render_page(messages: &[MailMessage]) -> String {
    let mut items = String::new();
    for message in messages {
        items.push_str(&format!(
            "<li><details><summary><time datetime=\"{iso}\">{when}</time> · <strong>{subject}</strong> · para {to}</summary>\
             <p>De: {from} · <a href=\"/inbox/messages/{id}\" target=\"_blank\" rel=\"noopener\">ver como HTML</a></p>\
             <pre>{body}</pre></details></li>",
            iso = message.created_at.to_rfc3339(),
            when = message.created_at.format("%d-%m-%Y %H:%M:%S UTC"),
            subject = escape_html(&message.subject),
            to = escape_html(&message.recipient),
            from = escape_html(&message.sender),
            id = message.id,
            body = escape_html(&message.text_body),
        ));
    }
    let list = if messages.is_empty() {
        "<p>No hay mensajes todavía. Los correos de confirmación, acceso y recuperación aparecerán aquí.</p>".to_owned()
    } else {
        format!("<ul>{items}</ul>")
    };
    format!(
        "<!doctype html><html lang=\"es-CL\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Bandeja de desarrollo · Cielo</title>\
         <style>body{{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}}\
         li{{list-style:none;border-bottom:1px solid #ccc;padding:.5rem 0}}pre{{white-space:pre-wrap;background:#f4f4f5;padding:1rem;border-radius:.5rem}}\
         @media (prefers-color-scheme:dark){{body{{background:#111;color:#eee}}pre{{background:#222}}a{{color:#8ab4f8}}}}</style></head>\
         <body><h1>Bandeja de desarrollo</h1>\
         <p>Correos que Cielo habría enviado. Configure <code>SMTP_HOST</code> para enviarlos de verdad.</p>\
         {list}</body></html>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_escapes_message_fields() {
        let message = MailMessage {
            id: 1,
            recipient: "<b>@x.cl".into(),
            sender: "Cielo".into(),
            subject: "<script>alert(1)</script>".into(),
            text_body: "hola".into(),
            html_body: String::new(),
            created_at: DateTime::<Utc>::from_timestamp(0, 0).unwrap(),
            links: Vec::new(),
        };
        let html = render_page(&[message]);
        assert!(!html.contains("<script>alert"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(render_page(&[]).contains("No hay mensajes"));
    }
}
