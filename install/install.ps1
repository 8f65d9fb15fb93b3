# Panelot on Windows: the host in .venv, made startable by your browsers (registry keys under
# HKCU, or HKLM with -System as administrator), then checked. Arguments go to
# `panelot-host install` (--browser, --system, --extension-id, --dry-run, --force).
# The work is in Python (panelot_host.install); this file only finds Python and chains the steps.
#   powershell -ExecutionPolicy Bypass -File install\install.ps1
$ErrorActionPreference = "Stop"
Set-Location (Split-Path -Parent $PSScriptRoot)

function Find-Python {
    # like ff2mpv: the launcher first, then python3, then python
    foreach ($candidate in @(@("py", "-3"), @("python3"), @("python"))) {
        $exe = $candidate[0]
        if (Get-Command $exe -ErrorAction SilentlyContinue) {
            $rest = @($candidate | Select-Object -Skip 1)
            & $exe @rest -c "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)"
            if ($LASTEXITCODE -eq 0) { return ,$candidate }
        }
    }
    throw "Panelot needs Python 3.11 or newer: install it from python.org (tick 'Add to PATH')"
}

if (-not (Test-Path ".venv\Scripts\python.exe")) {
    $python = Find-Python
    $exe = $python[0]
    $rest = @($python | Select-Object -Skip 1)
    & $exe @rest -m venv .venv
    if ($LASTEXITCODE -ne 0) { throw "could not create .venv" }
}
& .venv\Scripts\python.exe -m pip install --quiet --disable-pip-version-check -e .
if ($LASTEXITCODE -ne 0) { throw "pip could not install the host into .venv" }
# the side panel's libraries from npm (lockfile) into extension-shim\vendor\
if (-not (Get-Command npm -ErrorAction SilentlyContinue)) {
    throw "Panelot's side panel needs npm to copy its libraries: install Node.js from nodejs.org"
}
Push-Location extension-shim
npm ci --omit=dev --no-audit --no-fund --loglevel=error
if ($LASTEXITCODE -ne 0) { Pop-Location; throw "npm ci failed in extension-shim" }
node scripts/vendor.mjs
if ($LASTEXITCODE -ne 0) { Pop-Location; throw "could not copy the side panel's libraries" }
Pop-Location
& .venv\Scripts\panelot-host.exe install --doctor @args
exit $LASTEXITCODE
