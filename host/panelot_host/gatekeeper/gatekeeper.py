"""The Gatekeeper: target resolution, the decision, and revalidation before dispatch."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from msgspec.structs import replace

from panelot_host.gatekeeper.defaults import default_decision
from panelot_host.gatekeeper.destination import destination_target
from panelot_host.gatekeeper.grants import (
    grants_digest,
    l2_attached,
    matching_grant,
    relevant_grants,
)
from panelot_host.gatekeeper.models import (
    Action,
    Decision,
    DecisionBasis,
    DecisionSource,
    Grant,
    PolicyRule,
)
from panelot_host.gatekeeper.policy import Policy, rule_label
from panelot_host.gatekeeper.provenance import flow_sentence, foreign_sources
from panelot_host.tools.calls import BoundCall
from panelot_host.tools.context import BrowserBridge, require_browser
from panelot_host.tools.descriptor import BrowserBinding
from panelot_host.tools.target import Target


async def resolve_target(call: BoundCall, browser: BrowserBridge | None) -> Target | None:
    """The call's target: None at L0, the tool's own resolver, or the shim's answer
    (``browser.resolveTarget``) for browser tools; for one that loads a URL, that URL's
    destination in the tab the shim named (``destination.destination_target``). A call
    that acts on no open tab (``BrowserBinding.acts_on``) has no ``tab_id``.

    Raises:
        ToolError: a browser tool with no browser connected, the shim failed, or the URL a
            navigation loads is not an absolute URL.
    """
    descriptor = call.tool.descriptor
    if call.level == "L0":
        return None
    if descriptor.resolve_target is not None:
        return await descriptor.resolve_target(call.args)
    binding = descriptor.binding
    if isinstance(binding, BrowserBinding):
        tab = await require_browser(browser).resolve_target(binding.tool, call.args)
        if binding.acts_on != "tab":  # opening a tab, listing tabs: no open tab is acted on
            tab = replace(tab, tab_id=None, active=None)
        if binding.destination is None:
            return tab
        return destination_target(tab, call.args, binding.destination)
    return None


class Gatekeeper:
    """Decides ``allow``/``ask``/``deny`` from policy rules, grants and the defaults.

    Pure: built from the current rules (rebuild it when settings change); the grants
    are passed per call. Order: the most specific policy rule decides when it says allow
    or deny; otherwise a grant decides (a deny grant first); otherwise a policy ``ask``
    asks; otherwise the defaults apply. A policy ``ask`` thus means "needs the user's
    consent", which a standing grant gives.
    """

    __slots__ = ("_policy",)

    def __init__(self, rules: Iterable[PolicyRule] = ()) -> None:
        self._policy = Policy(rules)

    @property
    def policy_digest(self) -> str:
        return self._policy.digest

    def decide(
        self,
        call: BoundCall,
        target: Target | None,
        *,
        thread_id: str,
        grants: Sequence[Grant],
        carried: Sequence[str] = (),
        read_from: Sequence[str] = (),
        foreign_tab: str | None = None,
    ) -> Decision:
        """The decision for ``call`` at ``target`` in ``thread_id`` given ``grants``.

        Four things turn what would be allowed into a question, since no grant, rule or
        default can have foreseen them (a deny stays a deny):

        - ``carried``: text read from pages that the URL the call loads would carry away
          (``carried.carried_text``);
        - ``read_from``: the origins whose content the turn read since the user's last
          message; when the call delivers into another origin than those
          (``provenance.foreign_sources``), a grant for its target site alone never covers
          it;
        - the tool's ``user_supplies``: what the user gives on the card at each call (the
          files of an upload), which no standing permission can give;
        - ``foreign_tab``: whose tab the target is ("your active tab") when the thread does
          not own it (``engine.thread_tabs``): a permission for the site is not one to take
          over someone else's tab.
        """
        decision = self._decide(call, target, thread_id=thread_id, grants=grants)
        foreign = foreign_sources(call, target, read_from)
        supplied = call.tool.descriptor.user_supplies
        if decision.action == "deny" or not (carried or foreign or supplied or foreign_tab):
            return decision
        concerns = []
        if foreign_tab:
            concerns.append(f"it acts on {foreign_tab}, which this thread does not own")
        if supplied:
            concerns.append(f"you pick the {supplied} for each call")
        if carried:
            shown = ", ".join(f"“{text}”" for text in carried)
            concerns.append(
                f"the address carries text read from a page ({shown}) to {_where(target)}"
            )
        if foreign:
            concerns.append(flow_sentence(call, target, foreign))
        concern = "; ".join(concerns)
        if decision.action == "allow":
            reason = f"{concern}: a standing permission never covers that"
        else:
            reason = f"{decision.reason}; {concern}"
        basis = replace(
            decision.basis, carried=tuple(carried), read_from=foreign, foreign_tab=foreign_tab
        )
        return replace(decision, action="ask", reason=reason, basis=basis)

    def _decide(
        self, call: BoundCall, target: Target | None, *, thread_id: str, grants: Sequence[Grant]
    ) -> Decision:
        origin = target.origin if target is not None else None
        effects = call.tool.descriptor.effects
        relevant = relevant_grants(grants, call.name, thread_id)
        basis = self._basis(call, target, relevant)
        match = self._policy.evaluate(call.name, effects, origin)
        if match is not None and match.action != "ask":
            return _decision(match.action, rule_label(match.rule), "policy", basis, rule=match.rule)
        grant = matching_grant(relevant, origin)
        if grant is not None:
            verb = "allowed" if grant.decision == "allow" else "denied"
            reason = f"you {verb} {grant.tool} {_grant_where(grant)}"
            return _decision(grant.decision, reason, "grant", basis, grant_id=grant.id)
        if match is not None:
            return _decision("ask", rule_label(match.rule), "policy", basis, rule=match.rule)
        attached = l2_attached(relevant, origin)
        default = default_decision(call.level, effects, origin, attached is not None)
        used = attached.id if attached is not None and default.action == "allow" else None
        return _decision(
            default.action, default.reason, "default", basis, default=default.name, grant_id=used
        )

    def revalidate(
        self,
        prior: Decision,
        call: BoundCall,
        target: Target | None,
        *,
        thread_id: str,
        grants: Sequence[Grant],
        approval_request_id: str | None = None,
        carried: Sequence[str] = (),
        read_from: Sequence[str] = (),
        foreign_tab: str | None = None,
    ) -> Decision:
        """Decide again right before dispatch, with the target resolved again.

        ``approval_request_id`` names the approval the user gave for ``prior`` (an ``ask``);
        grants created by that approval are not counted as a change. A deny that now
        applies denies; an allow still allows; an approved ask stands only if the origin,
        the policy and the relevant grants are unchanged since ``prior``, else it asks
        again (the reason says what changed).
        """
        if prior.action == "deny":
            return prior
        current = self.decide(
            call,
            target,
            thread_id=thread_id,
            grants=grants,
            carried=carried,
            read_from=read_from,
            foreign_tab=foreign_tab,
        )
        if current.action != "ask":
            return current
        compared = current.basis
        if approval_request_id is not None:
            others = [g for g in grants if not _from_approval(g, approval_request_id)]
            compared = self._basis(call, target, relevant_grants(others, call.name, thread_id))
        changes = _changes(prior.basis, compared)
        if prior.action == "ask" and approval_request_id is not None and not changes:
            return replace(current, action="allow", source="approval", reason="you approved it")
        why = "; ".join(changes) or "it needs your approval"
        reason = f"{current.reason} (asking again: {why})"
        return replace(current, source="revalidation", reason=reason)

    def _basis(
        self, call: BoundCall, target: Target | None, relevant: Sequence[Grant]
    ) -> DecisionBasis:
        return DecisionBasis(
            origin=target.origin if target is not None else None,
            tab_id=target.tab_id if target is not None else None,
            level=call.level,
            policy_digest=self._policy.digest,
            grants_digest=grants_digest(relevant),
        )


def _decision(
    action: Action, reason: str, source: DecisionSource, basis: DecisionBasis, **why: Any
) -> Decision:
    return Decision(action=action, reason=reason, source=source, basis=replace(basis, **why))


def _grant_where(grant: Grant) -> str:
    match grant.scope:
        case "thread":
            return "in this conversation" + (f" on {grant.origin}" if grant.origin else "")
        case "origin":
            return f"on {grant.origin}"
        case _:
            return "everywhere" if grant.origin is None else f"on {grant.origin}"


def _where(target: Target | None) -> str:
    return target.origin if target is not None and target.origin else "another place"


def _from_approval(grant: Grant, request_id: str) -> bool:
    return grant.provenance is not None and grant.provenance.approval_request_id == request_id


def _changes(before: DecisionBasis, after: DecisionBasis) -> list[str]:
    changes = []
    if before.origin != after.origin:
        changes.append(f"the tab moved from {before.origin} to {after.origin}")
    if before.policy_digest != after.policy_digest:
        changes.append("the policy changed")
    if before.grants_digest != after.grants_digest:
        changes.append("your permissions changed")
    return changes
