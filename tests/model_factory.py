"""Make small GGUF chat models with random weights, offline.

The tokenizer is a real byte-level BPE trained here with the ``tokenizers``
library on text of this repository's domain; the chat template is ChatML. The
weights are random, so the model writes nonsense, but it is a real llama.cpp
model: it loads, tokenizes, evaluates, samples and obeys grammars like any
other. Used by the test suite and the benchmarks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

_CORPUS = """Thought: I need to look up the policy. Action: calculator Action Input: round(20000 / 30 * 10, 2)
Observation: 6666.67 Final Answer: You would receive 6666.67 for 10 days of unused vacation leave.
How many sick days do I have left? Can I cash out unused vacation leave, and how much would I get?
Vacation leave, sick leave, service incentive leave, maternity, paternity, bereavement, overtime, remote work,
probation, encashment, carry over, accrual, salary, basic pay, department, manager, employee, HR policy.
0123456789 + - * / // % ** ( ) , . : ; ! ? ' " [ ] { } < > = _ @ # $ & | ~ ^ `
Joseph Peña, Alexander Verdad, Jinky Francisco, Zoë, José, Müller, Łukasz, Søren, Ana-María.
"""


def train_tokenizer(vocab_size: int = 600):
    """A byte-level BPE trained on a small domain corpus (no download)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator([_CORPUS] * 20, trainer=trainer)
    return tok


def write_tiny_gguf(
    path: Path,
    *,
    n_embd: int = 64,
    n_layer: int = 2,
    n_head: int = 4,
    n_ff: int = 128,
    n_ctx: int = 4096,
    extra_vocab: int = 0,
    seed: int = 0,
    chat_template: str | None = CHATML,
    architecture: str = "llama",
) -> Path:
    """Write a llama-architecture GGUF with random F32 weights and a trained BPE tokenizer.

    ``extra_vocab`` pads the vocabulary with synthetic tokens (for example to
    128k, to measure grammar cost on a vocabulary of a modern model's size).
    """
    import gguf

    tok = train_tokenizer()
    vocab = tok.get_vocab()
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    import json

    merges = json.loads(tok.to_str())["model"]["merges"]
    merges = [m if isinstance(m, str) else " ".join(m) for m in merges]
    rng = np.random.default_rng(seed)
    if extra_vocab:
        letters = "abcdefghijklmnopqrstuvwxyzĠ"
        for i in range(extra_vocab):
            n = int(rng.integers(2, 8))
            tokens.append("".join(letters[j] for j in rng.integers(0, len(letters), n)) + f"{i:x}")
    n_vocab = len(tokens)
    types = [gguf.TokenType.CONTROL if t in SPECIALS else gguf.TokenType.NORMAL for t in tokens]

    w = gguf.GGUFWriter(str(path), architecture)
    w.add_name("tiny-random-test-model")
    w.add_context_length(n_ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(vocab["<|endoftext|>"])
    w.add_eos_token_id(vocab["<|im_end|>"])
    w.add_add_bos_token(False)
    if chat_template:
        w.add_chat_template(chat_template)

    def t(*shape):
        return (rng.standard_normal(shape) * 0.5).astype(np.float32)

    w.add_tensor("token_embd.weight", t(n_vocab, n_embd))
    w.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
    w.add_tensor("output.weight", t(n_vocab, n_embd))
    for i in range(n_layer):
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(n_embd, dtype=np.float32))
        w.add_tensor(f"blk.{i}.attn_q.weight", t(n_embd, n_embd))
        w.add_tensor(f"blk.{i}.attn_k.weight", t(n_embd, n_embd))
        w.add_tensor(f"blk.{i}.attn_v.weight", t(n_embd, n_embd))
        w.add_tensor(f"blk.{i}.attn_output.weight", t(n_embd, n_embd))
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
        w.add_tensor(f"blk.{i}.ffn_gate.weight", t(n_ff, n_embd))
        w.add_tensor(f"blk.{i}.ffn_up.weight", t(n_ff, n_embd))
        w.add_tensor(f"blk.{i}.ffn_down.weight", t(n_embd, n_ff))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
