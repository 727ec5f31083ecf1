//! Load generator of `bench/auth.sh` (see there): raw bcrypt, password sign-ins, REST
//! latency alone and during a sign-in storm, refresh-token grants; and the pgbench script
//! that does a refresh grant's database work.
//!
//! Environment: BENCH_URL, BENCH_ANON_KEY, BENCH_SERVICE_KEY, BENCH_SECONDS (10),
//! BENCH_CONNECTIONS (32), BENCH_OUT (directory for results and the pgbench script),
//! BENCH_ONLY=refresh (refresh grants alone, e.g. to profile them).
#![allow(clippy::print_stdout, clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const PASSWORD: &str = "clave-de-benchmark-1";

fn env(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}

#[derive(Debug, Default, Clone)]
struct Run {
    count: u64,
    seconds: f64,
    latencies_us: Vec<u64>,
}

impl Run {
    /// Two runs of the same load as one.
    fn merge(mut self, other: Run) -> Run {
        self.count += other.count;
        self.seconds += other.seconds;
        self.latencies_us.extend(other.latencies_us);
        self
    }

    fn rate(&self) -> f64 {
        self.count as f64 / self.seconds
    }
    fn percentile(&self, p: f64) -> f64 {
        let mut sorted = self.latencies_us.clone();
        sorted.sort_unstable();
        if sorted.is_empty() {
            return 0.0;
        }
        let index = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
        sorted[index] as f64 / 1000.0
    }
    fn json(&self) -> Value {
        json!({"per_second": self.rate(), "p50_ms": self.percentile(0.5), "p90_ms": self.percentile(0.9), "p99_ms": self.percentile(0.99), "p999_ms": self.percentile(0.999), "max_ms": self.percentile(1.0), "count": self.count})
    }
}

/// bcrypt cost-10 verifications per second on every core, the ceiling for sign-ins.
fn raw_bcrypt(seconds: f64) -> Run {
    let hash = bcrypt::hash(PASSWORD, 10).unwrap();
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let (hash, stop, done) = (hash.clone(), stop.clone(), done.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    assert!(bcrypt::verify(PASSWORD, &hash).unwrap());
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    for worker in workers {
        worker.join().unwrap();
    }
    Run {
        count: done.load(Ordering::Relaxed),
        seconds: started.elapsed().as_secs_f64(),
        latencies_us: Vec::new(),
    }
}

/// `connections` loops calling `request(i)` until `seconds` pass.
async fn load<F, Fut>(connections: usize, seconds: f64, request: F) -> Run
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let request = Arc::new(request);
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let started = Instant::now();
    let tasks: Vec<_> = (0..connections)
        .map(|i| {
            let request = request.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while Instant::now() < deadline {
                    let begun = Instant::now();
                    assert!(request(i).await, "request failed");
                    latencies.push(begun.elapsed().as_micros() as u64);
                }
                latencies
            })
        })
        .collect();
    let mut latencies_us = Vec::new();
    for task in tasks {
        latencies_us.extend(task.await.unwrap());
    }
    Run {
        count: latencies_us.len() as u64,
        seconds: started.elapsed().as_secs_f64(),
        latencies_us,
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let url = env("BENCH_URL", "http://127.0.0.1:54321");
    let anon = env("BENCH_ANON_KEY", "");
    let service = env("BENCH_SERVICE_KEY", "");
    let seconds: f64 = env("BENCH_SECONDS", "10").parse().unwrap();
    let connections: usize = env("BENCH_CONNECTIONS", "32").parse().unwrap();
    let out = std::path::PathBuf::from(env("BENCH_OUT", "."));
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .build()
        .unwrap();

    // BENCH_ONLY=refresh measures refresh grants alone (for profiling; not for auth.sh).
    let refresh_only = env("BENCH_ONLY", "") == "refresh";
    let skipped = || Run {
        count: 0,
        seconds: 1.0,
        latencies_us: Vec::new(),
    };

    eprintln!("[bench] creating {connections} users");
    let mut emails = Vec::new();
    for i in 0..connections {
        let email = format!("bench-{i}-{}@cielo.test", uuid::Uuid::new_v4().simple());
        let response = http
            .post(format!("{url}/auth/v1/admin/users"))
            .header("apikey", &service)
            .bearer_auth(&service)
            .json(&json!({"email": email, "password": PASSWORD, "email_confirm": true}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        emails.push(email);
    }
    let emails = Arc::new(emails);

    let sign_in = {
        let (http, url, anon, emails) = (http.clone(), url.clone(), anon.clone(), emails.clone());
        move |i: usize| {
            let (http, url, anon, email) = (
                http.clone(),
                url.clone(),
                anon.clone(),
                emails[i % emails.len()].clone(),
            );
            async move {
                http.post(format!("{url}/auth/v1/token?grant_type=password"))
                    .header("apikey", &anon)
                    .json(&json!({"email": email, "password": PASSWORD}))
                    .send()
                    .await
                    .is_ok_and(|r| r.status() == 200)
            }
        }
    };
    let rest = {
        let (http, url, anon) = (http.clone(), url.clone(), anon.clone());
        move |i: usize| {
            let (http, url, anon) = (http.clone(), url.clone(), anon.clone());
            async move {
                http.get(format!(
                    "{url}/rest/v1/bench_notes?select=*&id=eq.{}",
                    i % 100 + 1
                ))
                .header("apikey", &anon)
                .send()
                .await
                .is_ok_and(|r| r.status() == 200)
            }
        }
    };

    let (bcrypt_run, sign_ins, rest_alone, storm_rest, storm_sign_ins) = if refresh_only {
        (skipped(), skipped(), skipped(), skipped(), skipped())
    } else {
        // The machine's speed drifts by several percent within a minute: raw bcrypt and
        // sign-ins alternate in half-length runs (A B B A), so drift cancels out.
        eprintln!("[bench] raw bcrypt and password sign-ins, interleaved");
        let half = seconds / 2.0;
        let raw_first = raw_bcrypt(half);
        let sign_ins = load(connections, half, sign_in.clone()).await;
        let sign_ins = sign_ins.merge(load(connections, half, sign_in.clone()).await);
        let bcrypt_run = raw_first.merge(raw_bcrypt(half));
        eprintln!("[bench] REST alone");
        let rest_alone = load(connections, seconds, rest.clone()).await;
        eprintln!("[bench] REST during a sign-in storm");
        let (storm_rest, storm_sign_ins) = tokio::join!(
            load(connections, seconds, rest.clone()),
            load(connections, seconds, sign_in.clone())
        );
        (bcrypt_run, sign_ins, rest_alone, storm_rest, storm_sign_ins)
    };

    eprintln!("[bench] refresh grants");
    let mut tokens = Vec::new();
    for email in emails.iter() {
        let session: Value = http
            .post(format!("{url}/auth/v1/token?grant_type=password"))
            .header("apikey", &anon)
            .json(&json!({"email": email, "password": PASSWORD}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        tokens.push(tokio::sync::Mutex::new(
            session["refresh_token"].as_str().unwrap().to_owned(),
        ));
    }
    let tokens = Arc::new(tokens);
    let refresh = {
        let (http, url, anon, tokens) = (http.clone(), url.clone(), anon.clone(), tokens.clone());
        move |i: usize| {
            let (http, url, anon, tokens) =
                (http.clone(), url.clone(), anon.clone(), tokens.clone());
            async move {
                let mut token = tokens[i].lock().await;
                let Ok(response) = http
                    .post(format!("{url}/auth/v1/token?grant_type=refresh_token"))
                    .header("apikey", &anon)
                    .json(&json!({"refresh_token": *token}))
                    .send()
                    .await
                else {
                    return false;
                };
                if response.status() != 200 {
                    let status = response.status();
                    eprintln!(
                        "[bench] refresh grant answered {status}: {}",
                        response.text().await.unwrap_or_default()
                    );
                    return false;
                }
                let body: Value = response.json().await.unwrap_or_default();
                *token = body["refresh_token"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                true
            }
        }
    };
    let refreshes = load(connections, seconds, refresh).await;

    // pgbench: the database work of one refresh grant — the gateway's statement, with its
    // session's live token looked up in place (pgbench cannot remember the last answer).
    let live_token = "(SELECT t.token FROM auth.refresh_tokens t \
         WHERE t.session_id = (SELECT session_id FROM cielo_bench_sessions WHERE n = :n) \
         AND t.revoked IS NOT TRUE ORDER BY t.id DESC LIMIT 1)";
    let statement = gateway::auth_v1::store::ROTATE_REFRESH_TOKEN_SQL
        .replace("$1", live_token)
        .replace("$2", "md5(random()::text) || md5(random()::text)")
        .replace("$3", "'127.0.0.1'")
        .replace("$4", "'127.0.0.1'")
        .replace("$5", "'pgbench'");
    let statement = statement.split_whitespace().collect::<Vec<_>>().join(" ");
    let script = format!("\\set n :client_id % {connections}\n{statement};\n");
    std::fs::write(out.join("refresh.pgbench"), script).unwrap();

    let results = json!({
        "seconds": seconds,
        "connections": connections,
        "bcrypt_raw": bcrypt_run.json(),
        "sign_ins": sign_ins.json(),
        "rest_alone": rest_alone.json(),
        "rest_during_storm": storm_rest.json(),
        "sign_ins_during_storm": storm_sign_ins.json(),
        "refresh": refreshes.json(),
    });
    std::fs::write(
        out.join("gateway.json"),
        serde_json::to_string_pretty(&results).unwrap(),
    )
    .unwrap();
    println!("{results}");
}
