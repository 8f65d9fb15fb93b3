"""How a typed line answers an approval, an ``ask_user`` question or a budget pause."""

from __future__ import annotations

from panelot_host.cli.chat_questions import (
    ApprovalQuestion,
    InteractionQuestion,
    approval_answer,
    interaction_answer,
    resume_answer,
)
from panelot_host.cli.chat_render import result_text, usage_text
from panelot_host.tools.builtin import answer_schema

ON_SITE = ApprovalQuestion({"requestId": "apr_1", "target": {"origin": "https://a.example"}})
NO_SITE = ApprovalQuestion({"requestId": "apr_2", "target": {}})


def test_approval_answers_choose_decision_and_scope() -> None:
    assert approval_answer(ON_SITE, "o") == {
        "requestId": "apr_1",
        "decision": "allow",
        "scope": "once",
    }
    assert approval_answer(ON_SITE, " Thread ")["scope"] == "thread"  # type: ignore[index]
    assert approval_answer(ON_SITE, "s")["scope"] == "origin"  # type: ignore[index]
    assert approval_answer(NO_SITE, "s") is None  # no origin to allow
    assert approval_answer(ON_SITE, "") is None
    assert approval_answer(ON_SITE, "whatever") is None


def test_a_denial_carries_its_reason() -> None:
    assert approval_answer(ON_SITE, "deny: too risky") == {
        "requestId": "apr_1",
        "decision": "deny",
        "scope": "once",
        "message": "too risky",
    }
    assert "message" not in approval_answer(ON_SITE, "n")  # type: ignore[operator]


def test_ask_user_answers_pick_options_by_number_or_name() -> None:
    choice = InteractionQuestion(
        {"interactionId": "int_1", "schema": answer_schema(["Red", "Blue"])}
    )
    assert choice.options == ["Red", "Blue"]
    assert interaction_answer(choice, "2") == "Blue"
    assert interaction_answer(choice, "red") == "Red"
    assert interaction_answer(choice, "3") is None
    assert interaction_answer(choice, "green") is None
    free = InteractionQuestion({"interactionId": "int_2", "schema": answer_schema(None)})
    assert interaction_answer(free, "  my name  ") == "my name"
    assert interaction_answer(free, "   ") is None


def test_resume_answers() -> None:
    assert resume_answer("y") == (True, None)
    assert resume_answer("20000") == (True, 20000)
    assert resume_answer("no") == (False, None)
    assert resume_answer("0") is None
    assert resume_answer("later") is None


def test_results_and_usage_fit_on_one_line() -> None:
    fenced = {"content": "<untrusted-page-content>\nLoaded\nthe page\n</untrusted-page-content>"}
    assert result_text(fenced) == "Loaded the page"
    blocks = {"content": [{"type": "text", "text": "Shot"}, {"type": "image", "data": "x"}]}
    assert result_text(blocks) == "Shot [image]"
    assert len(result_text({"content": "x" * 500})) == 120
    usage = {"inputTokens": 10, "outputTokens": 5, "cacheReadTokens": 90, "cacheWriteTokens": 0}
    assert usage_text(usage, None) == "100 in (90 cached), 5 out · cost unknown"
    assert usage_text(usage, 0.01234) == "100 in (90 cached), 5 out · $0.0123"
    thought = {**usage, "reasoningTokens": 3}
    assert usage_text(thought, None) == "100 in (90 cached), 5 out (3 reasoning) · cost unknown"


def test_a_compaction_shows_as_a_divider() -> None:
    import io

    from panelot_host.cli.chat_render import Renderer

    out = io.StringIO()
    item = {"id": "i", "kind": "compaction", "coveredItems": 42, "summary": "s"}
    Renderer(out).event("item.completed", {"turnId": "t", "item": item})
    assert "42 older items summarized" in out.getvalue()
