"""Reference timings for `npm run bench -- agreement`: scikit-learn's Cohen's kappa and statsmodels' Fleiss' kappa on
the very data the bench times Verdict on, written by it as little-endian int32 files into the folder given:

  kappa-a.i32, kappa-b.i32   two raters' label codes (1,000,000 pairs)
  ratings.i32                items x 3 raters, label codes, row-major (every item rated by all three)

Each figure is the median of RUNS timed runs after one warm-up, as the bench does for its own. Prints one JSON
object: for each library its version, the time in ms and the value it computed (so the bench can check that both
sides computed the same coefficient), or the reason it is absent.
"""

import json
import sys
import time

RUNS = 7


def median_ms(fn, runs=RUNS):
    fn()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return times[len(times) // 2]


def main(folder):
    out = {"python": sys.executable}
    try:
        import numpy as np
    except ImportError as e:
        print(json.dumps({**out, "absent": f"numpy cannot be imported: {e}"}))
        return
    # As numpy's default integers, the libraries' fastest input (scikit-learn 1.2 takes 8x as long on int32 codes).
    a = np.fromfile(f"{folder}/kappa-a.i32", dtype="<i4").astype(np.int64)
    b = np.fromfile(f"{folder}/kappa-b.i32", dtype="<i4").astype(np.int64)
    ratings = np.fromfile(f"{folder}/ratings.i32", dtype="<i4").astype(np.int64).reshape(-1, 3)

    try:
        import sklearn
        from sklearn.metrics import cohen_kappa_score

        value = float(cohen_kappa_score(a, b))
        out["sklearn"] = {"version": sklearn.__version__, "ms": median_ms(lambda: cohen_kappa_score(a, b)), "kappa": value}
    except ImportError as e:
        out["sklearn"] = {"absent": f"scikit-learn cannot be imported: {e}"}

    try:
        import statsmodels
        from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

        # Fleiss' kappa from the items x raters codes, as statsmodels documents it: counts per item, then kappa.
        def fleiss():
            return fleiss_kappa(aggregate_raters(ratings)[0])

        out["statsmodels"] = {"version": statsmodels.__version__, "ms": median_ms(fleiss), "kappa": float(fleiss())}
    except ImportError as e:
        out["statsmodels"] = {"absent": f"statsmodels cannot be imported: {e}"}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
