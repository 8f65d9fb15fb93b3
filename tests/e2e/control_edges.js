// Every visible control of the page with a border or a fill: the contrast of its edge with
// the colour behind it (WCAG 1.4.11, which axe does not check). Run by test_panel_readable.py.
(() => {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const behind = (el) => {
    for (let up = el.parentElement; up; up = up.parentElement) {
      const c = rgb(getComputedStyle(up).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c;
    }
    return rgb(getComputedStyle(document.documentElement).backgroundColor);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  return [...document.querySelectorAll("button, input, select, textarea")]
    .filter((el) => el.checkVisibility() && el.getBoundingClientRect().width > 0)
    .map((el) => {
      const style = getComputedStyle(el);
      const edge = rgb(style.borderTopColor);
      const shown = style.borderTopStyle !== "none" && parseFloat(style.borderTopWidth) > 0 && (edge.length === 3 || edge[3] > 0);
      const fill = rgb(style.backgroundColor);
      const filled = fill.length === 3 || fill[3] > 0;
      const around = behind(el);
      // a control shows its shape by its border, or by a fill that stands out on its own
      const best = Math.max(shown ? ratio(edge, around) : 0, filled ? ratio(fill.slice(0, 3), around) : 0);
      return { what: el.id || el.getAttribute("aria-label") || el.textContent.trim().slice(0, 30) || el.tagName, ratio: Math.round(best * 100) / 100, shown, filled };
    })
    .filter((c) => c.shown || c.filled);
})
