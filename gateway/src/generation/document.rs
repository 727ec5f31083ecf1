//! The editor's document JSON (ProseMirror/Tiptap: `{"type": "doc", "content": [...]}`),
//! the shape `plan_zones.content` holds, built from plain text: paragraphs, bold labels and
//! bullet lists. Model prose arrives as plain text and becomes paragraphs here, so whatever
//! a model writes, a zone's content is always a well-formed document.

use serde_json::{Value, json};

/// A document of these blocks.
pub fn doc(blocks: Vec<Value>) -> Value {
    json!({ "type": "doc", "content": blocks })
}

fn text(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

fn bold(text: &str) -> Value {
    json!({ "type": "text", "text": text, "marks": [{ "type": "bold" }] })
}

/// A paragraph; an empty text gives an empty paragraph (the editor has no empty text nodes).
pub fn paragraph(content: &str) -> Value {
    if content.is_empty() {
        json!({ "type": "paragraph" })
    } else {
        json!({ "type": "paragraph", "content": [text(content)] })
    }
}

/// A paragraph starting with a bold label: "**label** rest".
pub fn labeled(label: &str, rest: &str) -> Value {
    let mut content = vec![bold(label)];
    if !rest.is_empty() {
        content.push(text(&format!(" {rest}")));
    }
    json!({ "type": "paragraph", "content": content })
}

/// A bullet list, one paragraph per item.
pub fn bullet_list<S: AsRef<str>>(items: &[S]) -> Value {
    let items: Vec<Value> = items
        .iter()
        .map(|item| json!({ "type": "listItem", "content": [paragraph(item.as_ref())] }))
        .collect();
    json!({ "type": "bulletList", "content": items })
}

/// Plain text (a model's answer) as blocks: one paragraph per non-blank line, with Markdown
/// a model may add anyway (headings, bullets, bold markers) taken off.
pub fn prose(plain: &str) -> Vec<Value> {
    plain
        .lines()
        .map(clean_line)
        .filter(|line| !line.is_empty())
        .map(|line| paragraph(&line))
        .collect()
}

fn clean_line(line: &str) -> String {
    let mut line = line.trim();
    line = line.trim_start_matches('#').trim_start();
    for bullet in ["- ", "* ", "• ", "– "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            line = rest.trim_start();
        }
    }
    line.replace("**", "").replace("__", "")
}

/// Every text of a document, concatenated (what `rich_text_length` counts).
pub fn plain_text(document: &Value) -> String {
    let mut out = String::new();
    collect(document, &mut out);
    out
}

/// A document's text with one line per paragraph or heading, as a prompt quotes it.
pub fn text_lines(document: &Value) -> String {
    let mut lines = Vec::new();
    collect_lines(document, &mut lines);
    lines.join("\n")
}

fn collect_lines(node: &Value, lines: &mut Vec<String>) {
    match node.get("type").and_then(Value::as_str) {
        Some("paragraph" | "heading") => {
            let line = plain_text(node);
            if !line.trim().is_empty() {
                lines.push(line);
            }
        }
        _ => {
            for child in node
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                collect_lines(child, lines);
            }
        }
    }
}

fn collect(node: &Value, out: &mut String) {
    if let Some(text) = node.get("text").and_then(Value::as_str) {
        out.push_str(text);
    }
    if let Some(children) = node.get("content").and_then(Value::as_array) {
        for child in children {
            collect(child, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_becomes_clean_paragraphs() {
        let blocks = prose("## Inicio\n\n- **Pregunta** inicial  \n* otra\n\n1. numerada\n");
        assert_eq!(
            blocks,
            vec![
                paragraph("Inicio"),
                paragraph("Pregunta inicial"),
                paragraph("otra"),
                paragraph("1. numerada"),
            ]
        );
        assert_eq!(doc(blocks.clone())["content"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn no_empty_text_nodes() {
        assert_eq!(paragraph(""), json!({ "type": "paragraph" }));
        assert_eq!(labeled("Eje:", "")["content"].as_array().unwrap().len(), 1);
        assert!(prose("\n  \n").is_empty());
    }

    #[test]
    fn plain_text_reads_every_node() {
        let document = doc(vec![
            labeled("MA07 OA 03", "Descomponer"),
            bullet_list(&["a", "b"]),
        ]);
        assert_eq!(plain_text(&document), "MA07 OA 03 Descomponerab");
        assert_eq!(text_lines(&document), "MA07 OA 03 Descomponer\na\nb");
    }
}
