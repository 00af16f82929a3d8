/** Issue 38, item 1: the space put where Latin letters or digits meet Chinese, Japanese, Korean or Thai letters. */
import { describe, expect, test } from "bun:test";
import { unsegmentedRuns } from "../../../src/index/write/cjk.ts";
import { buildSessionDocument, buildTurnDocument } from "../../../src/index/write/documents.ts";
import { spaceScriptBoundaries } from "../../../src/index/write/script-boundary.ts";
import { splitUnsegmented } from "../../../src/search/ranking/cjk.ts";
import { parseLexicalQuery } from "../../../src/search/ranking/query.ts";

describe("spaceScriptBoundaries", () => {
  test("the issue's strings get a space on each side of the Latin word", () => {
    expect(spaceScriptBoundaries("我本地安装了kimi-cli 帮我看看他的配置")).toBe(
      "我本地安装了 kimi-cli 帮我看看他的配置",
    );
    expect(spaceScriptBoundaries("你应该使用ripgrep代替所有的grep操作")).toBe(
      "你应该使用 ripgrep 代替所有的 grep 操作",
    );
    expect(spaceScriptBoundaries("更新statusline 展示")).toBe("更新 statusline 展示");
    expect(spaceScriptBoundaries("前端为什么一打开vim就会退出")).toBe("前端为什么一打开 vim 就会退出");
  });

  test("digits, kana with the prolonged sound mark, Hangul and full-width Latin split; accents and plain text do not", () => {
    expect(spaceScriptBoundaries("第3章")).toBe("第 3 章");
    expect(spaceScriptBoundaries("サーバーnginx")).toBe("サーバー nginx");
    expect(spaceScriptBoundaries("kimi를 설치")).toBe("kimi 를 설치");
    expect(spaceScriptBoundaries("ｋｉｍｉ中文")).toBe("ｋｉｍｉ 中文");
    expect(spaceScriptBoundaries("café 中文")).toBe("café 中文");
    expect(spaceScriptBoundaries("plain English 42")).toBe("plain English 42");
  });

  test("documents space their searched columns and keep the embedded text as written", () => {
    const turn = buildTurnDocument({ prompt: "打开vim就退出", response: "用ripgrep", toolCalls: [], files: [] });
    expect([turn.heading, turn.body]).toEqual(["打开 vim 就退出", "用 ripgrep"]);
    expect(turn.embedText).toBe("打开vim就退出\n\n用ripgrep");
    const session = buildSessionDocument({ title: "安装了kimi-cli", projectName: "p" }, ["更新statusline"], []);
    expect([session.heading, session.body, session.embedText]).toEqual([
      "安装了 kimi-cli",
      "更新 statusline",
      "安装了kimi-cli",
    ]);
  });

  test("side-index runs end at a Latin word, and a query splits the same way", () => {
    expect(unsegmentedRuns("我本地安装了kimi-cli 帮我看看他的配置")).toEqual(["我本地安装了", "帮我看看他的配置"]);
    expect(parseLexicalQuery("安装了kimi-cli").terms).toEqual(['"kimi cli"', '"安装了"']);
    const quoted = splitUnsegmented(parseLexicalQuery('"安装了kimi-cli"'));
    expect(quoted?.rest.terms).toEqual(['"kimi cli"']);
    expect(quoted?.runs).toEqual(["安装了"]);
  });
});
