//! The auth mails in Spanish (Chile), and their overrides.
//!
//! Templates use GoTrue's variables (`{{ .ConfirmationURL }}`, `{{ .Token }}`,
//! `{{ .TokenHash }}`, `{{ .SiteURL }}`, `{{ .Email }}`, `{{ .NewEmail }}`,
//! `{{ .RedirectTo }}`, `{{ .Data.<key> }}`), so a template written for Supabase works here.
//! A template is replaced by a file (`MAILER_TEMPLATES_<NAME>` or `<name>.html` in
//! `MAILER_TEMPLATES_DIR`), a subject by `MAILER_SUBJECTS_<NAME>`. Values are HTML-escaped
//! in the HTML part; the text part is derived from the HTML.

use std::collections::HashMap;

use crate::config::{MAIL_TEMPLATES, MailerTemplates};

/// Which mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Template {
    Confirmation,
    Invite,
    Recovery,
    MagicLink,
    EmailChange,
    Reauthentication,
}

impl Template {
    pub fn name(self) -> &'static str {
        match self {
            Template::Confirmation => "confirmation",
            Template::Invite => "invite",
            Template::Recovery => "recovery",
            Template::MagicLink => "magic_link",
            Template::EmailChange => "email_change",
            Template::Reauthentication => "reauthentication",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        [
            Template::Confirmation,
            Template::Invite,
            Template::Recovery,
            Template::MagicLink,
            Template::EmailChange,
            Template::Reauthentication,
        ]
        .into_iter()
        .find(|template| template.name() == name)
    }

    fn default_subject(self) -> &'static str {
        match self {
            Template::Confirmation => "Confirma tu correo en Cielo",
            Template::Invite => "Te invitaron a Cielo",
            Template::Recovery => "Restablece tu contraseña de Cielo",
            Template::MagicLink => "Tu enlace para entrar a Cielo",
            Template::EmailChange => "Confirma tu nuevo correo en Cielo",
            Template::Reauthentication => "{{ .Token }} es tu código de verificación",
        }
    }

    fn default_body(self) -> &'static str {
        match self {
            Template::Confirmation => {
                "<h2>Confirma tu correo</h2>\n\
                 <p>¡Hola! Para terminar de crear tu cuenta en Cielo, confirma que {{ .Email }} es tu correo.</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Confirmar mi correo</a></p>\n\
                 <p>También puedes ingresar este código: <strong>{{ .Token }}</strong></p>\n\
                 <p>Si no creaste una cuenta en Cielo, puedes ignorar este mensaje.</p>\n"
            }
            Template::Invite => {
                "<h2>Te invitaron a Cielo</h2>\n\
                 <p>Te invitaron a crear una cuenta en Cielo con el correo {{ .Email }}. Sigue el enlace para aceptar la invitación.</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Aceptar la invitación</a></p>\n\
                 <p>Si no esperabas esta invitación, puedes ignorar este mensaje.</p>\n"
            }
            Template::Recovery => {
                "<h2>Restablece tu contraseña</h2>\n\
                 <p>Recibimos una solicitud para restablecer la contraseña de tu cuenta en Cielo. Sigue el enlace para elegir una nueva.</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Restablecer mi contraseña</a></p>\n\
                 <p>También puedes ingresar este código: <strong>{{ .Token }}</strong></p>\n\
                 <p>Si no lo pediste tú, puedes ignorar este mensaje: tu contraseña no cambiará.</p>\n"
            }
            Template::MagicLink => {
                "<h2>Tu enlace para entrar</h2>\n\
                 <p>Sigue el enlace para entrar a Cielo. Vence pronto y sirve una sola vez.</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Entrar a Cielo</a></p>\n\
                 <p>O ingresa este código: <strong>{{ .Token }}</strong></p>\n\
                 <p>Si no lo pediste tú, puedes ignorar este mensaje.</p>\n"
            }
            Template::EmailChange => {
                "<h2>Confirma el cambio de correo</h2>\n\
                 <p>Pediste cambiar el correo de tu cuenta en Cielo de {{ .Email }} a {{ .NewEmail }}. Sigue el enlace para confirmarlo.</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Confirmar el cambio</a></p>\n\
                 <p>También puedes ingresar este código: <strong>{{ .Token }}</strong></p>\n\
                 <p>Si no lo pediste tú, ignora este mensaje y tu correo seguirá igual.</p>\n"
            }
            Template::Reauthentication => {
                "<h2>Tu código de verificación</h2>\n\
                 <p>Ingresa este código para confirmar que eres tú. Vence pronto.</p>\n\
                 <p><strong>{{ .Token }}</strong></p>\n\
                 <p>Si no lo pediste tú, cambia tu contraseña.</p>\n"
            }
        }
    }
}

/// The values a template can use.
#[derive(Debug, Clone, Default)]
pub struct TemplateData {
    pub confirmation_url: String,
    pub token: String,
    pub token_hash: String,
    pub site_url: String,
    pub email: String,
    pub new_email: String,
    pub redirect_to: String,
    pub data: serde_json::Map<String, serde_json::Value>,
}

/// A rendered mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub subject: String,
    pub html: String,
    pub text: String,
}

/// Loaded templates (built-in ones with the configured overrides applied).
#[derive(Debug, Clone)]
pub struct Templates {
    subjects: HashMap<Template, String>,
    bodies: HashMap<Template, String>,
}

/// A template override could not be read.
#[derive(Debug, thiserror::Error)]
#[error("could not read mail template {path}: {source}")]
pub struct TemplateError {
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

impl Templates {
    /// Built-in templates with the overrides of `settings`; a configured file that cannot
    /// be read stops start-up (a silent fallback would send the wrong mail).
    pub fn load(settings: &MailerTemplates) -> Result<Self, TemplateError> {
        let mut subjects = HashMap::new();
        let mut bodies = HashMap::new();
        for name in MAIL_TEMPLATES {
            let Some(template) = Template::from_name(name) else {
                continue;
            };
            subjects.insert(template, template.default_subject().to_owned());
            bodies.insert(template, template.default_body().to_owned());
            if let Some(dir) = &settings.dir {
                let path = dir.join(format!("{name}.html"));
                if path.is_file() {
                    let body = std::fs::read_to_string(&path).map_err(|source| TemplateError {
                        path: path.display().to_string(),
                        source,
                    })?;
                    bodies.insert(template, body);
                }
            }
        }
        for (name, path) in &settings.files {
            if let Some(template) = Template::from_name(name) {
                let body = std::fs::read_to_string(path).map_err(|source| TemplateError {
                    path: path.display().to_string(),
                    source,
                })?;
                bodies.insert(template, body);
            }
        }
        for (name, subject) in &settings.subjects {
            if let Some(template) = Template::from_name(name) {
                subjects.insert(template, subject.clone());
            }
        }
        Ok(Self { subjects, bodies })
    }

    pub fn render(&self, template: Template, data: &TemplateData) -> Rendered {
        let subject = self
            .subjects
            .get(&template)
            .map_or(template.default_subject(), String::as_str);
        let body = self
            .bodies
            .get(&template)
            .map_or(template.default_body(), String::as_str);
        let html = substitute(body, data, true);
        Rendered {
            subject: substitute(subject, data, false),
            text: html_to_text(&html),
            html,
        }
    }
}

/// Replaces `{{ .Name }}` placeholders; unknown names become empty, as Go templates do
/// with missing map keys.
fn substitute(template: &str, data: &TemplateData, html: bool) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let expression = rest[start + 2..start + end].trim();
        let value = lookup(expression, data);
        if html {
            out.push_str(&escape_html(&value));
        } else {
            out.push_str(&value);
        }
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    out
}

fn lookup(expression: &str, data: &TemplateData) -> String {
    match expression {
        ".ConfirmationURL" => data.confirmation_url.clone(),
        ".Token" => data.token.clone(),
        ".TokenHash" => data.token_hash.clone(),
        ".SiteURL" => data.site_url.clone(),
        ".Email" => data.email.clone(),
        ".NewEmail" => data.new_email.clone(),
        ".RedirectTo" => data.redirect_to.clone(),
        other => match other.strip_prefix(".Data.") {
            Some(key) => match data.data.get(key) {
                Some(serde_json::Value::String(text)) => text.clone(),
                Some(serde_json::Value::Null) | None => String::new(),
                Some(value) => value.to_string(),
            },
            None => String::new(),
        },
    }
}

/// A plain-text part from the HTML: tags removed, links kept as their URL.
pub fn html_to_text(html: &str) -> String {
    let mut text = String::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        text.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('>') else {
            break;
        };
        let tag = &rest[start + 1..start + end];
        if let Some(href) = attribute(tag, "href") {
            text.push_str(&unescape_html(&href));
            text.push_str(" — ");
        }
        if tag.starts_with("/p") || tag.starts_with("/h") || tag.starts_with("br") {
            text.push('\n');
        }
        rest = &rest[start + end + 1..];
    }
    text.push_str(rest);
    let text = unescape_html(&text);
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
        .replace(" — \n", "\n")
}

/// The `href` targets of an HTML body (the dev inbox API lists them for tests and tools).
pub fn links(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let Some(end) = rest[start..].find('>') else {
            break;
        };
        if let Some(href) = attribute(&rest[start + 1..start + end], "href") {
            found.push(unescape_html(&href));
        }
        rest = &rest[start + end + 1..];
    }
    found
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let position = tag.find(&format!("{name}=\""))?;
    let value = &tag[position + name.len() + 2..];
    value.find('"').map(|end| value[..end].to_owned())
}

/// Escapes text for HTML element content and attribute values.
pub fn escape_html(raw: &str) -> String {
    let mut escaped = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

fn unescape_html(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape_html(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    fn data() -> TemplateData {
        TemplateData {
            confirmation_url: "https://api.cielo.cl/auth/v1/verify?token=abc&type=signup".into(),
            token: "123456".into(),
            email: "ana@colegio.cl".into(),
            ..TemplateData::default()
        }
    }

    #[test]
    fn built_in_mail_is_spanish_with_link_and_code() {
        let templates = Templates::load(&MailerTemplates::default()).unwrap();
        let mail = templates.render(Template::Confirmation, &data());
        assert_eq!(mail.subject, "Confirma tu correo en Cielo");
        assert!(
            mail.html
                .contains("href=\"https://api.cielo.cl/auth/v1/verify?token=abc&amp;type=signup\"")
        );
        assert!(mail.html.contains("<strong>123456</strong>"));
        assert!(
            mail.text
                .contains("https://api.cielo.cl/auth/v1/verify?token=abc&type=signup")
        );
        assert!(!mail.text.contains('<'));
        assert_eq!(
            links(&mail.html),
            ["https://api.cielo.cl/auth/v1/verify?token=abc&type=signup"]
        );
        let code = templates.render(Template::Reauthentication, &data());
        assert_eq!(code.subject, "123456 es tu código de verificación");
    }

    #[test]
    fn values_are_escaped_and_data_is_reachable() {
        let templates = Templates::load(&MailerTemplates::default()).unwrap();
        let mut data = data();
        data.email = "<script>@x.cl".into();
        let mail = templates.render(Template::Confirmation, &data);
        assert!(!mail.html.contains("<script>"));
        let mut data = TemplateData::default();
        data.data.insert("nombre".into(), "Ana".into());
        assert_eq!(
            substitute("Hola {{ .Data.nombre }}{{.Unknown}}!", &data, true),
            "Hola Ana!"
        );
    }

    #[test]
    fn files_and_subjects_override() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("recovery.html"),
            "<p>Clave: <a href=\"{{ .ConfirmationURL }}\">aquí</a></p>",
        )
        .unwrap();
        let other = dir.path().join("invite-cl.html");
        std::fs::write(&other, "<p>Bienvenida {{ .Email }}</p>").unwrap();
        let settings = MailerTemplates {
            dir: Some(dir.path().to_owned()),
            subjects: vec![("recovery".into(), "Nueva clave".into())],
            files: vec![("invite".into(), other)],
        };
        let templates = Templates::load(&settings).unwrap();
        let mail = templates.render(Template::Recovery, &data());
        assert_eq!(mail.subject, "Nueva clave");
        assert!(mail.html.starts_with("<p>Clave: <a href="));
        let invite = templates.render(Template::Invite, &data());
        assert_eq!(invite.html, "<p>Bienvenida ana@colegio.cl</p>");
        let missing = MailerTemplates {
            files: vec![("invite".into(), dir.path().join("nope.html"))],
            ..MailerTemplates::default()
        };
        assert!(Templates::load(&missing).is_err());
    }
}
