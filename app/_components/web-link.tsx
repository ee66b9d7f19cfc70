/**
 * A link to a URL that came from imported data (a task's start URL or input image). Only http(s) URLs become
 * links, opened by the user's click in a new tab without a referrer; anything else (data:, file:, a local path)
 * is shown as text. Nothing here loads the URL by itself: an imported address must not be able to tell its
 * owner who is looking at a task, or when.
 */
import type { ReactNode } from "react";

export function isWebUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

export function WebLink({ url, className, children }: { url: string; className?: string; children?: ReactNode }) {
  if (!isWebUrl(url)) {
    return (
      <span className={className} title={url}>
        {children ?? url}
      </span>
    );
  }
  return (
    <a className={className} href={url} target="_blank" rel="noreferrer noopener" referrerPolicy="no-referrer" title={url}>
      {children ?? url}
    </a>
  );
}
