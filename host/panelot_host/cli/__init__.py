"""The ``panelot-host`` command line.

``main`` parses the command and imports only what it runs (Chrome starts the host often;
start-up cost matters). ``config`` reads the allowed extension origins
(``panelot_host.home`` finds ``PANELOT_HOME``); ``logs`` sets up logging (file and stderr,
never stdout) and ``log_rotation`` rotates the file (loaded once the host's first answers
are out); ``chat`` and its modules ``chat_session``, ``chat_render``, ``chat_questions``,
``chat_input`` are the terminal client (session logic, rendering, questions, input);
``host_session`` runs a short-lived in-process host for the user commands
``credentials_cmd`` (``credentials set|list|delete``) and ``settings_cmd`` (``config
get|set|unset``) and ``model_options_cmd`` (``model-options``: the OpenAI API, reasoning
effort and thinking budget of a model) and ``workflow_cmd`` (``workflow
list|show|export|import|run|delete``) and ``export_cmd`` (``export THREAD``: a thread as
JSON, Markdown, an HTML report or a GIF); ``permissions`` exports the grant ledger; ``install``
runs ``install`` and ``uninstall``; ``doctor`` (with ``doctor_data`` for the data checks and
``doctor_versions`` for the host's and the bundled extension's versions and
``doctor_schema`` for the databases' schema versions and migration copies) says why a
browser cannot reach the host; ``show_logs`` is ``panelot-host logs``; ``extension_cmd`` is
``panelot-host extension path|pack``.
"""
