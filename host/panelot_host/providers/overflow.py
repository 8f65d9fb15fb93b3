"""Telling a "prompt too long" answer from other provider errors.

Anthropic answers HTTP 400 ``invalid_request_error`` "prompt is too long: N tokens > M
maximum"; OpenAI answers 400 ``context_length_exceeded`` ("This model's maximum context
length is N tokens..."); OpenAI-compatible servers (vLLM, llama.cpp, LM Studio) use similar
words, and some proxies answer 413. The engine compacts the context and retries once.
"""

from __future__ import annotations

import re

from panelot_host.errors import ProviderError, ProviderHTTPError

_TOO_LONG = re.compile(
    r"prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|"
    r"context window|too many (input )?tokens|input is too long|exceeds? the context|"
    r"request too large|prompt too long",
    re.IGNORECASE,
)


def is_prompt_too_long(error: ProviderError) -> bool:
    """Whether ``error`` says the request's input exceeded the model's context window."""
    if isinstance(error, ProviderHTTPError):
        if error.status == 413:
            return True
        if error.status != 400:
            return False
    return bool(_TOO_LONG.search(error.message))
