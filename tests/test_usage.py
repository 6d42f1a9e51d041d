from types import SimpleNamespace

import pytest

from quotebench.usage import normalize


def U(prompt, completion, reasoning, total):
    return {"prompt": prompt, "completion": completion, "reasoning": reasoning, "total": total}


CASES = [
    # --- OpenAI chat: completion_tokens already includes reasoning_tokens.
    (
        "openai-reasoning",
        {
            "prompt_tokens": 100,
            "completion_tokens": 250,
            "total_tokens": 350,
            "completion_tokens_details": {"reasoning_tokens": 200, "accepted_prediction_tokens": 0},
            "prompt_tokens_details": {"cached_tokens": 64},
        },
        U(100, 250, 200, 350),
    ),
    ("openai-no-total", {"prompt_tokens": 10, "completion_tokens": 5}, U(10, 5, 0, 15)),
    (
        "openai-total-computed-without-adding-reasoning",
        {"prompt_tokens": 10, "completion_tokens": 50, "completion_tokens_details": {"reasoning_tokens": 40}},
        U(10, 50, 40, 60),
    ),
    (
        "openai-null-details",
        {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10, "completion_tokens_details": None},
        U(7, 3, 0, 10),
    ),
    # --- Azure: same keys, often without the details object.
    ("azure-no-details", {"prompt_tokens": 20, "completion_tokens": 8, "total_tokens": 28}, U(20, 8, 0, 28)),
    (
        "azure-null-reasoning",
        {
            "prompt_tokens": 20,
            "completion_tokens": 8,
            "total_tokens": 28,
            "completion_tokens_details": {"reasoning_tokens": None},
        },
        U(20, 8, 0, 28),
    ),
    # --- Gemini OpenAI-compatible.
    (
        "gemini-compat-details",
        {
            "prompt_tokens": 30,
            "completion_tokens": 90,
            "total_tokens": 120,
            "completion_tokens_details": {"reasoning_tokens": 60},
        },
        U(30, 90, 60, 120),
    ),
    (
        "gemini-compat-thoughts-separate",
        {"prompt_tokens": 30, "completion_tokens": 10, "total_tokens": 100, "thoughts_token_count": 60},
        U(30, 10, 60, 100),
    ),
    (
        "gemini-compat-thoughts-no-total",
        {"prompt_tokens": 30, "completion_tokens": 10, "thoughts_token_count": 60},
        U(30, 10, 60, 100),
    ),
    # --- Gemini native usageMetadata: candidates exclude thoughts, total includes them.
    (
        "gemini-native",
        {
            "promptTokenCount": 40,
            "candidatesTokenCount": 12,
            "thoughtsTokenCount": 300,
            "totalTokenCount": 352,
        },
        U(40, 12, 300, 352),
    ),
    (
        "gemini-native-no-total-no-thoughts",
        {"promptTokenCount": 40, "candidatesTokenCount": 12},
        U(40, 12, 0, 52),
    ),
    (
        "gemini-native-no-total",
        {"promptTokenCount": 40, "candidatesTokenCount": 12, "thoughtsTokenCount": 8},
        U(40, 12, 8, 60),
    ),
    (
        "gemini-native-whole-response",
        {
            "candidates": [],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 2, "totalTokenCount": 3},
        },
        U(1, 2, 0, 3),
    ),
    (
        "gemini-genai-sdk-snake-case",
        {
            "prompt_token_count": 5,
            "candidates_token_count": 6,
            "thoughts_token_count": 7,
            "total_token_count": 18,
        },
        U(5, 6, 7, 18),
    ),
    # --- Anthropic: thinking inside output_tokens; cached prompt tokens reported separately.
    ("anthropic-plain", {"input_tokens": 50, "output_tokens": 20}, U(50, 20, 0, 70)),
    (
        "anthropic-cache",
        {
            "input_tokens": 5,
            "output_tokens": 20,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": 1000,
            "service_tier": "standard",
        },
        U(1105, 20, 0, 1125),
    ),
    (
        "anthropic-null-cache",
        {
            "input_tokens": 5,
            "output_tokens": 2,
            "cache_creation_input_tokens": None,
            "cache_read_input_tokens": None,
        },
        U(5, 2, 0, 7),
    ),
    (
        "anthropic-thinking-split-reported",
        {"input_tokens": 5, "output_tokens": 900, "output_tokens_details": {"thinking_tokens": 850}},
        U(5, 900, 850, 905),
    ),
    # --- partial / odd input: missing pieces are 0.
    ("only-completion", {"completion_tokens": 9}, U(0, 9, 0, 9)),
    ("float-and-str-counts", {"prompt_tokens": 3.0, "completion_tokens": "4"}, U(3, 4, 0, 7)),
]


@pytest.mark.parametrize(("raw", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_normalize_dict_shapes(raw, expected):
    assert normalize(raw) == expected


@pytest.mark.parametrize("raw", [None, {}, {"unrelated": 1}, "garbage", 42])
def test_nothing_recognisable_is_none(raw):
    assert normalize(raw) is None


def test_openai_sdk_object():
    from openai.types import CompletionUsage

    usage = CompletionUsage.model_validate(
        {
            "prompt_tokens": 11,
            "completion_tokens": 22,
            "total_tokens": 33,
            "completion_tokens_details": {"reasoning_tokens": 15},
        }
    )
    assert normalize(usage) == U(11, 22, 15, 33)


def test_anthropic_sdk_object():
    from anthropic.types import Usage

    usage = Usage.model_validate({"input_tokens": 4, "output_tokens": 6, "cache_read_input_tokens": 10})
    assert normalize(usage) == U(14, 6, 0, 20)


def test_plain_attribute_object_with_nested_details():
    usage = SimpleNamespace(
        prompt_tokens=1,
        completion_tokens=2,
        total_tokens=None,
        completion_tokens_details=SimpleNamespace(reasoning_tokens=1),
    )
    assert normalize(usage) == U(1, 2, 1, 3)


def test_result_is_always_four_ints():
    for _, raw, _ in CASES:
        out = normalize(raw)
        assert set(out) == {"prompt", "completion", "reasoning", "total"}
        assert all(type(v) is int for v in out.values())
