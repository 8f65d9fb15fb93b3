"""``panelot-host model-options``: a model's OpenAI API, reasoning effort and Anthropic
thinking budget stored from the shell, validated as the protocol does (issue 31)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_credentials_config import cli_env, host


def test_options_are_stored_shown_and_removed(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    set_ = host(env, "model-options", "gpt-5", "--api", "responses", "--reasoning-effort", "high")
    assert set_.returncode == 0, set_.stderr
    assert set_.stdout.strip() == "gpt-5: api=responses, reasoningEffort=high"
    claude = host(env, "model-options", "claude-sonnet-4-5", "--thinking-budget", "8000")
    assert claude.stdout.strip() == "claude-sonnet-4-5: thinkingBudget=8000"
    listed = host(env, "model-options")
    assert listed.stdout.splitlines() == [
        "claude-sonnet-4-5: thinkingBudget=8000",
        "gpt-5: api=responses, reasoningEffort=high",
    ]
    back = host(env, "model-options", "gpt-5", "--api", "default")
    assert back.stdout.strip() == "gpt-5: reasoningEffort=high"
    shown = host(env, "model-options", "gpt-5")
    assert shown.stdout.strip() == "gpt-5: reasoningEffort=high"


def test_a_budget_below_the_least_is_refused_with_its_path(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    low = host(env, "model-options", "claude-sonnet-4-5", "--thinking-budget", "100")
    assert low.returncode == 1
    assert "$.params.modelOptions" in low.stderr and "Traceback" not in low.stderr
    unnamed = host(env, "model-options", "--api", "chat")
    assert unnamed.returncode == 1 and "name the MODEL" in unnamed.stderr
