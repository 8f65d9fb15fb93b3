// A turn's timeline (issue 30): the pure parts of the worker's capture (frame size, marks
// in image pixels, typed text, first looks, skip reasons, capture spacing).

import assert from "node:assert/strict";
import test from "node:test";

import { captureWait, FirstLooks, frameSize, markInImage, MASK, skipOfError, typedOf } from "../src/tools/frame-geometry.js";

test("frameSize: a long side of at most 800 px, never scaled up", () => {
  assert.deepEqual(frameSize(1600, 900), { width: 800, height: 450, scale: 0.5 });
  assert.deepEqual(frameSize(720, 1440), { width: 400, height: 800, scale: 0.5555555555555556 });
  assert.deepEqual(frameSize(640, 480), { width: 640, height: 480, scale: 1 });
});

test("markInImage: a box or a point in viewport CSS px -> image px (scale = image width / viewport width)", () => {
  const viewport = { x: 0, y: 300, width: 1280, height: 720 };
  assert.deepEqual(markInImage({ box: { x: 100, y: 50, width: 200, height: 40 } }, viewport, 800, 450), { kind: "box", x: 62.5, y: 31.3, width: 125, height: 25 });
  assert.deepEqual(markInImage({ point: { x: 640, y: 360 } }, viewport, 800, 450), { kind: "point", x: 400, y: 225 });
  // a point wins over a box; nothing to draw, a box off the image or of no size: no mark
  assert.equal(markInImage({ point: { x: 10, y: 10 }, box: { x: 0, y: 0, width: 5, height: 5 } }, viewport, 800, 450)?.kind, "point");
  assert.equal(markInImage({ typed: "x" }, viewport, 800, 450), null);
  assert.equal(markInImage(undefined, viewport, 800, 450), null);
  assert.equal(markInImage({ box: { x: 0, y: 900, width: 10, height: 10 } }, viewport, 800, 450), null);
  assert.equal(markInImage({ box: { x: 0, y: 0, width: 0, height: 0 } }, viewport, 800, 450), null);
  assert.equal(markInImage({ point: { x: 1 } }, null, 800, 450), null);
});

test("typedOf: the text typed, a password field's masked, a long one cut", () => {
  assert.equal(typedOf({ typed: "hello" }), "hello");
  assert.equal(typedOf({ typed: "hunter2", secret: true }), MASK);
  assert.equal(typedOf({ box: { x: 0, y: 0, width: 1, height: 1 } }), undefined);
  assert.equal(typedOf({ typed: "a".repeat(5000) })?.length, 4000);
});

test("skipOfError: Chrome's refusals are not_allowed, anything else failed", () => {
  assert.equal(skipOfError(new Error('Cannot access contents of url "chrome://settings/".')), "not_allowed");
  assert.equal(skipOfError(new Error("The extensions gallery cannot be scripted.")), "not_allowed");
  assert.equal(skipOfError(new Error("the frame took longer than 4000 ms")), "failed");
});

test("FirstLooks: once per Turn and tab, the oldest forgotten past the bound", () => {
  const looks = new FirstLooks(3);
  assert.equal(looks.first("t1", 5), true);
  assert.equal(looks.first("t1", 5), false);
  assert.equal(looks.first("t1", 6), true);
  assert.equal(looks.first("t2", 5), true);
  looks.first("t3", 1); // t1/5 falls out
  assert.equal(looks.first("t1", 5), true);
});

test("captureWait: at most 2 captures start in any second", () => {
  assert.equal(captureWait([], 1000), 0);
  assert.equal(captureWait([1000], 1100), 0);
  assert.equal(captureWait([1000, 1100], 1200), 825);
  assert.equal(captureWait([1000, 1100, 2200], 2300), 0);
});
