import type { Metadata } from "next";
import { PageHeader } from "../../_components/ui";
import { CsvAgreementTool } from "../_components/csv-tool";

export const metadata: Metadata = { title: "CSV agreement" };

export default function CsvAgreementPage() {
  return (
    <>
      <PageHeader
        title="Agreement from a CSV"
        subtitle="Krippendorff's α, Fleiss' κ, pairwise agreement and Cohen's κ per rater pair, for labels made anywhere"
      />
      <div className="px-6 py-3">
        <CsvAgreementTool />
      </div>
    </>
  );
}
