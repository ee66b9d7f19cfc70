import { describe, expect, it } from "vitest";
import { baseUrlProblem, judgeConfigFormProblems, type JudgeConfigFormText } from "../../server/domain/evaluation/judge-config-form";

const typed: JudgeConfigFormText = {
  name: "gpt-4o marked",
  baseUrl: "",
  temperature: "0",
  maxOutputTokens: "1024",
  maxImageSide: "",
  priceInputPerMTok: "",
  priceOutputPerMTok: "",
  relevanceThreshold: null,
};

describe("the judge configuration form's own checks (review 2, #18)", () => {
  it("accept a form as it opens, with a name", () => {
    expect(judgeConfigFormProblems(typed)).toEqual({});
  });

  it("name each field that is wrong, in words, not schema text", () => {
    const problems = judgeConfigFormProblems({
      name: " ",
      baseUrl: "not a url",
      temperature: "2.5",
      maxOutputTokens: "8",
      maxImageSide: "12.5",
      priceInputPerMTok: "-1",
      priceOutputPerMTok: "free",
      relevanceThreshold: "6",
    });
    expect(Object.keys(problems).sort()).toEqual(
      ["baseUrl", "maxImageSide", "maxOutputTokens", "name", "priceInputPerMTok", "priceOutputPerMTok", "relevanceThreshold", "temperature"].sort(),
    );
    for (const text of Object.values(problems)) expect(text).not.toMatch(/expected|>=|Too small|field "/);
    expect(problems.temperature).toBe("Write a number from 0 to 2 (0 gives the most repeatable verdicts).");
  });

  it("take empty optional fields and the edges of each range", () => {
    expect(
      judgeConfigFormProblems({ ...typed, temperature: "2", maxOutputTokens: "16", maxImageSide: "10000", priceInputPerMTok: "0", relevanceThreshold: "1" }),
    ).toEqual({});
    expect(judgeConfigFormProblems({ ...typed, temperature: "" }).temperature).toBeDefined();
  });

  it("say why a base URL cannot be called", () => {
    expect(baseUrlProblem("")).toBeNull();
    expect(baseUrlProblem("http://gpu-box:8000/v1")).toBeNull();
    expect(baseUrlProblem("gpu-box:8000/v1")).toBe("The address must start with http:// or https://, not gpu-box://.");
    expect(baseUrlProblem("ftp://models.lab/v1")).toBe("The address must start with http:// or https://, not ftp://.");
    expect(baseUrlProblem("not a url")).toMatch(/^This is not a web address/);
  });
});
