"""Where the official APIs live. Kept apart from the adapters (which import httpx) so that
reading the configuration costs no HTTP stack."""

from __future__ import annotations

from urllib.parse import urlsplit

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
OPENAI_BASE_URL = "https://api.openai.com/v1"


def is_official(base_url: str) -> bool:
    """Whether ``base_url`` is OpenAI's own API (not an OpenAI-compatible server)."""
    return urlsplit(base_url).hostname == "api.openai.com"
