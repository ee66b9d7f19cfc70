import { describe, expect, it } from "vitest";
import { presignGetUrl } from "../../server/domain/s3-presign";

describe("presigned S3 URLs (SigV4 query form)", () => {
  it("reproduces the example of AWS's documentation for query-string authentication", () => {
    const url = presignGetUrl({
      objectUrl: "https://examplebucket.s3.amazonaws.com/test.txt",
      region: "us-east-1",
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      expiresSeconds: 86400,
      now: new Date("2013-05-24T00:00:00Z"),
    });
    expect(url).toBe(
      "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
    );
  });

  it("refuses lifetimes S3 does not accept", () => {
    const base = { objectUrl: "http://127.0.0.1:9000/b/k", region: "us-east-1", accessKeyId: "a", secretAccessKey: "s", now: new Date() };
    expect(() => presignGetUrl({ ...base, expiresSeconds: 0 })).toThrow(/1 s to 7 days/);
    expect(() => presignGetUrl({ ...base, expiresSeconds: 604_801 })).toThrow(/1 s to 7 days/);
  });
});
