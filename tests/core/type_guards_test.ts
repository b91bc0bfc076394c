import { test } from "node:test";
import assert from "node:assert/strict";
import {
  isArray,
  isBoolean,
  isDefined,
  isFunction,
  isNullish,
  isNumber,
  isObject,
  isPlainObject,
  isPromiseLike,
  isString,
} from "../../core/mod.ts";

class Point {
  x = 1;
}

test("isString() accepts string primitives only", () => {
  assert.equal(isString(""), true);
  assert.equal(isString("a"), true);
  assert.equal(isString(new String("a")), false);
  assert.equal(isString(1), false);
});

test("isNumber() accepts finite numbers only", () => {
  assert.equal(isNumber(0), true);
  assert.equal(isNumber(-1.5), true);
  assert.equal(isNumber(NaN), false);
  assert.equal(isNumber(Infinity), false);
  assert.equal(isNumber(-Infinity), false);
  assert.equal(isNumber("1"), false);
  assert.equal(isNumber(1n), false);
});

test("isBoolean() accepts true and false only", () => {
  assert.equal(isBoolean(true), true);
  assert.equal(isBoolean(false), true);
  assert.equal(isBoolean("false"), false);
  assert.equal(isBoolean(0), false);
});

test("isFunction() accepts functions, async functions and classes", () => {
  assert.equal(isFunction(() => 1), true);
  assert.equal(isFunction(async () => {}), true);
  assert.equal(isFunction(Point), true);
  assert.equal(isFunction({}), false);
});

test("isObject() accepts non-null objects, not functions", () => {
  assert.equal(isObject({}), true);
  assert.equal(isObject([]), true);
  assert.equal(isObject(new Date()), true);
  assert.equal(isObject(null), false);
  assert.equal(isObject(() => 1), false);
  assert.equal(isObject("x"), false);
});

test("isPlainObject() accepts literals and null-prototype objects only", () => {
  assert.equal(isPlainObject({ a: 1 }), true);
  assert.equal(isPlainObject(Object.create(null)), true);
  assert.equal(isPlainObject(new Object()), true);
  assert.equal(isPlainObject([]), false);
  assert.equal(isPlainObject(new Date()), false);
  assert.equal(isPlainObject(new Point()), false);
  assert.equal(isPlainObject(null), false);
});

test("isArray() accepts arrays only", () => {
  assert.equal(isArray([]), true);
  assert.equal(isArray(new Array(3)), true);
  assert.equal(isArray({ length: 0 }), false);
  assert.equal(isArray("ab"), false);
});

test("isDefined() and isNullish() are exact opposites", () => {
  const values = [null, undefined, 0, "", false, NaN, {}, []];
  for (const value of values) {
    assert.equal(isDefined(value), !isNullish(value));
  }
  assert.equal(isNullish(null), true);
  assert.equal(isNullish(undefined), true);
  assert.equal(isNullish(0), false);
  assert.deepEqual([1, null, 2, undefined].filter(isDefined), [1, 2]);
});

test("isPromiseLike() accepts promises and thenables", () => {
  assert.equal(isPromiseLike(Promise.resolve(1)), true);
  assert.equal(isPromiseLike({ then() {} }), true);
  const thenableFunction = Object.assign(() => {}, { then() {} });
  assert.equal(isPromiseLike(thenableFunction), true);
  assert.equal(isPromiseLike({ then: 1 }), false);
  assert.equal(isPromiseLike(null), false);
  assert.equal(isPromiseLike(1), false);
});
