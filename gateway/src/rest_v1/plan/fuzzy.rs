//! Fuzzy name matching for "Perhaps you meant …" hints, after the fuzzyset algorithm
//! PostgREST uses: n-gram (sizes 3, then 2) cosine similarity to shortlist, Levenshtein
//! similarity to rank, a minimum score to keep.

use std::collections::HashMap;

const GRAM_SIZES: [usize; 2] = [3, 2];

#[derive(Debug)]
pub struct FuzzySet<'a> {
    values: Vec<&'a str>,
}

/// Lower-cases, keeps letters, digits, commas and spaces, and pads with `-`.
fn simplified(value: &str, gram_size: usize) -> Vec<char> {
    let mut chars: Vec<char> = vec!['-'];
    chars.extend(value.to_lowercase().chars().filter(|c| {
        c.is_ascii_alphanumeric() || ('\u{C0}'..='\u{FF}').contains(c) || *c == ',' || *c == ' '
    }));
    chars.push('-');
    while chars.len() < gram_size {
        chars.push('-');
    }
    chars
}

fn grams(value: &str, gram_size: usize) -> HashMap<String, f64> {
    let chars = simplified(value, gram_size);
    let mut counts = HashMap::new();
    for window in chars.windows(gram_size) {
        *counts
            .entry(window.iter().collect::<String>())
            .or_insert(0.0) += 1.0;
    }
    counts
}

fn norm(counts: &HashMap<String, f64>) -> f64 {
    counts.values().map(|c| c * c).sum::<f64>().sqrt()
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

fn similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    1.0 - levenshtein(&a, &b) as f64 / longest as f64
}

impl<'a> FuzzySet<'a> {
    pub fn new(values: impl IntoIterator<Item = &'a str>) -> Self {
        Self {
            values: values.into_iter().collect(),
        }
    }

    /// Candidates scoring at least `min_score`, best first.
    pub fn matches(&self, query: &str, min_score: f64) -> Vec<(f64, &'a str)> {
        let lowered = query.to_lowercase();
        if let Some(exact) = self.values.iter().find(|v| v.to_lowercase() == lowered) {
            return vec![(1.0, exact)];
        }
        for gram_size in GRAM_SIZES {
            let query_grams = grams(query, gram_size);
            let query_norm = norm(&query_grams);
            let mut scored: Vec<(f64, &'a str)> = self
                .values
                .iter()
                .filter_map(|value| {
                    let value_grams = grams(value, gram_size);
                    let dot: f64 = query_grams
                        .iter()
                        .filter_map(|(gram, count)| {
                            value_grams.get(gram).map(|other| count * other)
                        })
                        .sum();
                    (dot > 0.0).then(|| (dot / (query_norm * norm(&value_grams)), *value))
                })
                .collect();
            if scored.is_empty() {
                continue;
            }
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            scored.truncate(50);
            let mut ranked: Vec<(f64, &'a str)> = scored
                .into_iter()
                .map(|(_, value)| (similarity(&value.to_lowercase(), &lowered), value))
                .collect();
            ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
            ranked.retain(|(score, _)| *score >= min_score);
            if !ranked.is_empty() {
                return ranked;
            }
        }
        Vec::new()
    }

    pub fn best_match(&self, query: &str, min_score: f64) -> Option<&'a str> {
        self.matches(query, min_score)
            .first()
            .map(|(_, value)| *value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names() {
        let set = FuzzySet::new(["courses", "students", "schools", "enrollments"]);
        assert_eq!(set.best_match("cursos", 0.33), Some("courses"));
        assert_eq!(set.best_match("student", 0.33), Some("students"));
        assert_eq!(set.best_match("xyz", 0.75), None);
        assert_eq!(set.matches("Schools", 0.33)[0], (1.0, "schools"));
    }
}
