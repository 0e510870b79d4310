"""Bad arguments and bad input files at the command line, and the cases that must keep
working: each refused case exits 2 with one line on stderr naming the thing, no
traceback, and the existing output file untouched."""
from __future__ import annotations

import pytest

from faultlib import check_kept, error_line, run_cli

K = "kernel --name ntk"
S = "spectrum --name ntk --dim 3 --kmax 5"
ST = "stability --digits 1 --amplitudes 0.1,0.2"
G = "gram --model M1 --mode ntk"
EK = "export kernel"
ES = "export spectrum"
ED = "export deform"
EST = "export stability"
ET = "export training --steps 20 --frames 2"

#: (case id, argv, text the message must contain, text it must not contain)
REFUSED = [
    # --- argument range checks (kept working well) ---------------------------------
    ("kernel grid 1", f"{K} --grid 1 --out {{csv}}", "--grid", None),
    ("kernel grid huge", f"{K} --grid 100000000 --out {{csv}}", "--grid", None),
    ("kernel depth 51", f"{K} --depth 51 --grid 3 --out {{csv}}", "--depth", None),
    ("kernel depth 400 digits", f"{K} --depth {'9' * 400} --grid 3 --out {{csv}}", "--depth", None),
    ("kernel bias negative", f"{K} --bias -1 --grid 3 --out {{csv}}", "--bias", None),
    ("kernel bias nan", f"{K} --bias nan --grid 3 --out {{csv}}", "--bias", None),
    ("kernel bias inf", f"{K} --bias 1e400 --grid 3 --out {{csv}}", "--bias", None),
    ("kernel bias above range", f"{K} --bias 100.5 --grid 3 --out {{csv}}", "--bias", None),
    ("kernel name", f"kernel --name foo --grid 3 --out {{csv}}", "--name", None),
    ("kernel activation", f"{K} --activation swish --grid 3 --out {{csv}}", "--activation", None),
    ("kernel u outside", f"{K} --u 1.5 --out {{csv}}", "--u", None),
    ("kernel u nan", f"{K} --u nan --out {{csv}}", "--u", None),
    ("kernel u text", f"{K} --u a,b --out {{csv}}", "--u", None),
    ("kernel grid and u", f"{K} --grid 3 --u 0.5 --out {{csv}}", "--u", None),
    ("kernel step normalize", f"{K} --activation step --normalize --grid 3 --out {{csv}}", "normalize", None),
    ("spectrum dim 1", f"spectrum --name ntk --dim 1 --kmax 5 --out {{csv}}", "--dim", None),
    ("spectrum dim 1001", f"spectrum --name ntk --dim 1001 --kmax 5 --out {{csv}}", "--dim", None),
    ("spectrum kmax 2001", f"spectrum --name ntk --dim 3 --kmax 2001 --out {{csv}}", "--kmax", None),
    ("spectrum kmax -1", f"spectrum --name ntk --dim 3 --kmax -1 --out {{csv}}", "--kmax", None),
    ("spectrum step NTK on the circle", f"spectrum --name ntk --activation step --dim 2 --kmax 5 "
                                        f"--out {{csv}}", "dim", None),
    ("stability seeds 0", f"{ST} --seeds 0 --out {{csv}}", "--seeds", None),
    ("stability family", f"{ST} --family bogus --out {{csv}}", "--family", None),
    ("stability amplitude 0", f"{ST.replace('0.1,0.2', '0,0.2')} --out {{csv}}", "--amplitudes", None),
    ("stability amplitude 1e4", f"{ST.replace('0.1,0.2', '0.1,1e4')} --out {{csv}}", "--amplitudes", None),
    ("export kernel points", f"{EK} --points 2 --out {{csv}}", "points", None),
    ("export kernel depth", f"{EK} --depth 99 --out {{csv}}", "depth", None),
    ("export kernel samples", f"{EK} --kernels ntk --net-width 100 --samples 0 --out {{csv}}", "samples", None),
    ("export spectrum dim", f"{ES} --dim 1001 --out {{csv}}", "dim", None),
    ("export spectrum kmax", f"{ES} --kmax 0 --out {{csv}}", "kmax", None),
    ("export spectrum bias above range", f"{ES} --bias 101 --out {{csv}}", "bias", None),
    ("export deform rotation", f"{ED} --rotation 1000 --out {{csv}}", "rotation", None),
    ("export deform scale", f"{ED} --scale 0 --out {{csv}}", "scale", None),
    ("export deform label", f"{ED} --label 10 --out {{csv}}", "label", None),
    ("export deform arch", f"{ED} --arch M9 --out {{csv}}", "M9", None),
    ("export stability family", f"{EST} --family bogus --out {{csv}}", "family", None),
    ("export stability digits", f"{EST} --digits 5000 --out {{csv}}", "digits", None),
    ("export stability amplitudes", f"{EST} --amplitudes 3,1 --out {{csv}}", "amplitude", None),
    ("export training odd width", f"{ET} --width-m 3 --out {{csv}}", "width", None),
    ("export training alpha 0", f"{ET} --alpha 0 --out {{csv}}", "alpha", None),
    ("export training frame", f"{ET} --frame 99 --out {{csv}}", "frame", None),
    ("gram mode", f"gram --model M1 --mode foo --images {{F[good.npy]}} --out {{npy}}", "--mode", None),
    ("gram model preset", f"gram --model M9 --mode ntk --images {{F[good.npy]}} --out {{npy}}", "--model", None),
    # --- silent substitutions -------------------------------------------------
    ("kernel u empty entry", f"{K} --u=0.5,,0.2 --out {{csv}}", "--u", None),
    ("kernel u comma only", f"{K} --u=, --out {{csv}}", "--u", None),
    ("kernel activation with arccos0", f"kernel --name arccos0 --activation tanh --grid 3 --out {{csv}}",
     "--activation", None),
    ("kernel depth with arccos1", f"kernel --name arccos1 --depth 3 --grid 3 --out {{csv}}", "--depth", None),
    ("spectrum bias with arccos0", f"spectrum --name arccos0 --bias 0.1 --dim 3 --kmax 3 --out {{csv}}",
     "--bias", None),
    ("export kernel net-width 0", f"{EK} --kernels ntk --net-width 0 --out {{csv}}", "width", None),
    ("export kernel kernels twice", f"{EK} --kernels ntk,ntk --out {{csv}}", "ntk", None),
    ("export kernel kernels empty entry", f"{EK} --kernels ntk,,arccos1 --out {{csv}}", "kernels", None),
    ("export kernel depths comma", f"{EK} --depths , --out {{csv}}", "depths", None),
    ("export kernel depths twice", f"{EK} --kernels ntk --depths 3,3 --out {{csv}}", "depths", None),
    ("export kernel activation with arccos only", f"{EK} --kernels arccos0 --activation tanh --out {{csv}}",
     "activation", None),
    ("export spectrum kernels twice", f"{ES} --kernels arccos1,arccos1 --out {{csv}}", "arccos1", None),
    ("stability amplitudes empty entry", f"{ST.replace('0.1,0.2', '0.1,,0.2')} --out {{csv}}", "--amplitudes", None),
    ("stability amplitudes unsorted", f"{ST.replace('0.1,0.2', '0.2,0.1')} --out {{csv}}", "increasing", None),
    # --- messages ---------------------------------------------------------------
    ("kernel u just below -1", f"{K} --u=-1.0000001 --out {{csv}}", "-1.0000001", "[-1, -1]"),
    ("stability references beyond digits", f"stability --references 100 --out {{csv}}", "--references",
     "-9000"),
    ("stability digits beyond bundle", f"stability --digits 2000 --references 99 --out {{csv}}", "--digits",
     "at most -"),
    ("export deform stack as image", f"{ED} --image {{F[stack4.npy]}} --out {{csv}}", "stack4.npy",
     "channels, got 28"),
    ("export deform text image", f"{ED} --image {{F[text.npy]}} --out {{csv}}", "text.npy", "image image"),
    ("export deform directory image", f"{ED} --image {{F[dir.npy]}} --out {{csv}}", "dir.npy", "no such file"),
    ("export deform 5-d image", f"{ED} --image {{F[four_d5.npy]}} --out {{csv}}", "four_d5.npy", "image image"),
    ("gram directory images", f"{G} --images {{F[dir.npy]}} --out {{npy}}", "dir.npy", "no such file"),
    # --- corrupt / foreign files (kept working well) -----------------------------------
    ("gram missing file", f"{G} --images {{F[missing.npy]}} --out {{npy}}", "missing.npy", None),
    ("gram text as npy", f"{G} --images {{F[text.npy]}} --out {{npy}}", "text.npy", None),
    ("gram empty npy", f"{G} --images {{F[empty.npy]}} --out {{npy}}", "empty.npy", None),
    ("gram truncated npy", f"{G} --images {{F[truncated.npy]}} --out {{npy}}", "truncated.npy", None),
    ("gram pickle as npy", f"{G} --images {{F[pickle.npy]}} --out {{npy}}", "pickle.npy", None),
    ("gram object array", f"{G} --images {{F[objects.npy]}} --out {{npy}}", "objects.npy", None),
    ("gram strings", f"{G} --images {{F[strings.npy]}} --out {{npy}}", "strings.npy", None),
    ("gram NaN pixels", f"{G} --images {{F[nan.npy]}} --out {{npy}}", "nan.npy", None),
    ("gram single image", f"{G} --images {{F[digit.npy]}} --out {{npy}}", "digit.npy", None),
    ("export deform missing image", f"{ED} --image {{F[missing.npy]}} --out {{csv}}", "missing.npy", None),
    ("export deform pickle image", f"{ED} --image {{F[pickle.npy]}} --out {{csv}}", "pickle.npy", None),
    ("export deform white 1x1 image is blank", f"{ED} --image {{F[one_pixel.npy]}} --out {{csv}}",
     "one_pixel.npy", None),
    ("export deform inf image", f"{ED} --image {{F[nan_image.npy]}} --out {{csv}}", "nan_image.npy", None),
    ("stability model bad JSON", f"{ST} --model {{F[bad.json]}} --out {{csv}}", "bad.json", None),
    ("stability model foreign JSON", f"{ST} --model {{F[foreign.json]}} --out {{csv}}", "foreign.json", None),
    ("stability model missing", f"{ST} --model {{F[missing.npy]}}.json --out {{csv}}", "missing", None),
    ("stability model directory", f"{ST} --model {{F[dir.json]}} --out {{csv}}", "dir.json", None),
    ("stability model nested JSON", f"{ST} --model {{F[nested.json]}} --out {{csv}}", "nested.json", None),
    # --- architecture refusals (kept working well) ---------------------------------------
    ("gram layer npatch 0", f"gram --model {{F[badlayer.json]}} --mode ntk --images {{F[good.npy]}} "
                            f"--out {{npy}}", "npatch", None),
    ("gram layer unknown key", f"gram --model {{F[unknownkey.json]}} --mode ntk --images {{F[good.npy]}} "
                               f"--out {{npy}}", "colour", None),
    ("gram patch larger than image", f"gram --model {{F[toolarge.json]}} --mode ntk --images "
                                     f"{{F[good.npy]}} --out {{npy}}", "patch", None),
    ("gram exp layers in ntk mode", f"gram --model M4 --mode ntk --images {{F[good.npy]}} --out {{npy}}",
     "ntk", None),
    # --- odd output paths (kept working well) ----------------------------------------------
    ("out wrong suffix", f"{K} --grid 3 --out {{tmp}}/k.txt", "--out", None),
    ("out missing folder", f"{K} --grid 3 --out {{tmp}}/no/such/k.csv", "--out", None),
    ("out is a folder", f"{K} --grid 3 --out {{tmp}}/folder.csv", "--out", None),
    ("out no name", f"{K} --grid 3 --out {{tmp}}/", "--out", None),
    ("export out wrong suffix", f"{EK} --out {{tmp}}/k.jpg", "--out", None),
    ("export out missing folder", f"{ES} --out {{tmp}}/no/x.svg", "--out", None),
    ("gram out wrong suffix", f"{G} --images {{F[good.npy]}} --out {{tmp}}/K.csv", "--out", None),
    # --- an output that is an input ------------------------------------------------------
    ("gram out is its input", f"{G} --images {{tmp}}/in.npy --out {{tmp}}/in.npy", "in.npy", None),
]

#: case id -> why it still fails (the fix belongs to another module); strict: a fix turns
#: the case into a failure until the entry is removed
OWNER_FIXES: dict[str, str] = {}


def _params():
    return [pytest.param(c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=OWNER_FIXES[c[0]])]
                         if c[0] in OWNER_FIXES else []) for c in REFUSED]


@pytest.mark.parametrize("case", _params())
def test_refused_with_one_line(case, kept, files, capsys):
    name, template, needle, forbidden = case
    (kept / "folder.csv").mkdir()
    (kept / "in.npy").write_bytes(files["good.npy"].read_bytes())
    before_input = (kept / "in.npy").read_bytes()
    argv = template.format(csv=kept / "kept.csv", npy=kept / "kept.npy", tmp=kept, F=files).split()
    code, _, err = run_cli(argv, capsys)
    assert code == 2, f"exit {code}: {err.strip()[-300:]}"
    line = error_line(err)
    assert line.startswith("ntkviz"), line
    assert needle in line, line
    if forbidden is not None:
        assert forbidden not in line, line
    check_kept(kept)
    assert (kept / "in.npy").read_bytes() == before_input
