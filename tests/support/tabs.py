"""The environment of a host whose threads act on the active tab without the question a
thread asks before it acts on a tab it does not own (issue 26): for the tests of other
features, whose fake browsers act on the tab that is active."""

ACT_ON_ANY_TAB = {"PANELOT_ACT_ON_UNOWNED_TABS": "1"}
