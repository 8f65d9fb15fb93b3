-- Schema 12: reasoning tokens (issue 31). The part of a model call's output tokens that was
-- the model's hidden reasoning (OpenAI reports it; it is billed as output and already
-- counted in ``output_tokens``), per model call (``usage``) and summed per Turn and thread.
-- Rows stored before this version read 0: their provider's count was not kept.

ALTER TABLE usage ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turn ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE thread ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
