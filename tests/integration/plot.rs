//! `lcsfmu simulate --plot`: the pictures, read back as a program would.
//!
//! The command runs as a user runs it (the built binary, on bundled models and on
//! a built FMU). SVGs are parsed with quick-xml and checked for what a reader
//! needs: one coloured line per plotted series (axes and ticks are black, the
//! grid is drawn with `<line>`), the panel titles, the legend names; PNGs are
//! decoded with the `png` crate and checked for size, the series colours and
//! rasterized text.

use super::fmus;
use lcsfmu::tool::plot::{self, Figure, Panel, Series, PALETTE};
use quick_xml::events::Event;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/plot-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn lcsfmu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lcsfmu"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What an SVG shows: the series lines (`points` counts) and the texts.
struct Svg {
    width: u32,
    height: u32,
    series_points: Vec<usize>,
    texts: Vec<String>,
}

/// Parses the whole document; any XML error fails the test.
fn read_svg(path: &Path) -> Svg {
    let text = std::fs::read_to_string(path).unwrap();
    let mut r = quick_xml::Reader::from_str(&text);
    let mut svg = Svg {
        width: 0,
        height: 0,
        series_points: vec![],
        texts: vec![],
    };
    let mut depth = 0i32;
    loop {
        let event = r
            .read_event()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let element = match &event {
            Event::Start(e) => {
                depth += 1;
                Some(e.clone())
            }
            Event::Empty(e) => Some(e.clone()),
            Event::End(_) => {
                depth -= 1;
                None
            }
            Event::Text(t) => {
                let t = t.unescape().unwrap();
                if !t.trim().is_empty() {
                    svg.texts.push(t.trim().to_string());
                }
                None
            }
            Event::Eof => break,
            _ => None,
        };
        let Some(e) = element else { continue };
        let attr = |name: &str| {
            e.try_get_attribute(name)
                .unwrap()
                .map(|a| a.unescape_value().unwrap().into_owned())
        };
        match e.name().as_ref() {
            b"svg" => {
                svg.width = attr("width").unwrap().parse().unwrap();
                svg.height = attr("height").unwrap().parse().unwrap();
            }
            b"polyline" if attr("stroke").as_deref() != Some("#000000") => {
                let points = attr("points").unwrap();
                svg.series_points.push(points.split_whitespace().count());
            }
            _ => {}
        }
    }
    assert_eq!(depth, 0, "unbalanced elements");
    assert!(svg.width > 0, "no <svg> root");
    svg
}

#[test]
fn svg_of_coulomb_friction_has_every_kind() {
    let dir = scratch("kinds");
    let (svg, csv) = (dir.join("cf.svg"), dir.join("cf.csv"));
    ok(lcsfmu(&[
        "simulate",
        "models/coulomb_friction.toml",
        "--plot",
        svg.to_str().unwrap(),
        "-o",
        csv.to_str().unwrap(),
    ]));
    // -o still gets the CSV: 0 ... 5 s by 0.2 s.
    let table = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(table.lines().count(), 1 + 26);
    let s = read_svg(&svg);
    assert_eq!((s.width, s.height), (1000, 40 + 3 * 240));
    // x, v | F_plus, F_minus, v_abs | F_f: one line each, every sample drawn.
    assert_eq!(s.series_points, [26; 6]);
    for want in [
        "coulomb_friction",
        "States",
        "Complementarity variables",
        "Outputs",
        "value [N]",
        "time",
        "x",
        "v",
        "F_plus",
        "F_minus",
        "v_abs",
        "F_f",
    ] {
        assert!(s.texts.iter().any(|t| t == want), "no text '{want}'");
    }
    assert!(std::fs::metadata(&svg).unwrap().len() > 10_000);
}

#[test]
fn plot_vars_selects_and_refuses_unknown_names() {
    let dir = scratch("select");
    let svg = dir.join("sel.svg");
    let svg_arg = svg.to_str().unwrap();
    ok(lcsfmu(&[
        "simulate",
        "models/coulomb_friction.toml",
        "--plot",
        svg_arg,
        "--plot-vars",
        "F_f,x",
    ]));
    let s = read_svg(&svg);
    assert_eq!(s.series_points.len(), 2);
    assert_eq!(s.height, 40 + 2 * 240);
    assert!(s.texts.iter().any(|t| t == "F_f") && s.texts.iter().any(|t| t == "x"));
    assert!(!s
        .texts
        .iter()
        .any(|t| t == "v" || t == "Complementarity variables"));

    std::fs::remove_file(&svg).unwrap();
    let csv = dir.join("sel.csv");
    let out = lcsfmu(&[
        "simulate",
        "models/coulomb_friction.toml",
        "--plot",
        svg_arg,
        "--plot-vars",
        "x,bogus",
        "-o",
        csv.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("'bogus'"), "{err}");
    assert!(err.contains("x, v, F_plus, F_minus, v_abs, F_f"), "{err}");
    assert!(
        !svg.exists() && !csv.exists(),
        "a refused plot wrote a file"
    );

    let out = lcsfmu(&[
        "simulate",
        "models/coulomb_friction.toml",
        "--plot",
        dir.join("sel.pdf").to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains(".svg or .png"));
    assert!(!out.status.success());
}

#[test]
fn large_models_stay_readable() {
    let dir = scratch("large");
    let svg = dir.join("chain.svg");
    ok(lcsfmu(&[
        "simulate",
        "models/bead_chain.toml",
        "--plot",
        svg.to_str().unwrap(),
    ]));
    // 20 states and 10 contacts: ten of each kind drawn, the rest said.
    let s = read_svg(&svg);
    assert_eq!(s.series_points.len(), 10 + 10 + 1);
    assert!(
        s.texts.iter().any(|t| t.contains("first 10 of 20")),
        "{:?}",
        s.texts
    );
    let out = lcsfmu(&[
        "simulate",
        "models/bead_chain.toml",
        "--plot",
        svg.to_str().unwrap(),
        "--plot-vars",
        "q1,q2,q3,q4,q5,q6,q7,q8,q9,q10,v1",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 10"));
    // 20,001 samples of stick_slip: decimated to a bounded line, same picture.
    let svg = dir.join("stick.svg");
    ok(lcsfmu(&[
        "simulate",
        "models/stick_slip.toml",
        "--plot",
        svg.to_str().unwrap(),
    ]));
    let s = read_svg(&svg);
    assert!(!s.series_points.is_empty());
    assert!(s.series_points.iter().all(|&n| n > 1000 && n <= 6000));
}

#[test]
fn png_is_a_picture_with_text() {
    let dir = scratch("png");
    let path = dir.join("spiral.png");
    ok(lcsfmu(&[
        "simulate",
        "models/sign_spiral.toml",
        "--plot",
        path.to_str().unwrap(),
    ]));
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let mut reader = png::Decoder::new(std::io::Cursor::new(&bytes))
        .read_info()
        .unwrap();
    let mut rgb = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut rgb).unwrap();
    assert_eq!((info.width, info.height), (1000, 40 + 2 * 240));
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let pixels: Vec<&[u8]> = rgb.chunks(3).collect();
    let white = pixels.iter().filter(|p| **p == [255, 255, 255]).count();
    assert!(white > pixels.len() / 2 && white < pixels.len() * 99 / 100);
    // The first two series colours, as drawn (2 px lines).
    for c in &PALETTE[..2] {
        let n = pixels.iter().filter(|p| **p == [c.0, c.1, c.2]).count();
        assert!(n > 500, "{c:?}: {n} pixels");
    }
    // The title band holds nothing but the title: dark pixels there are its glyphs.
    let dark = pixels[..1000 * 30].iter().filter(|p| p[0] < 100).count();
    assert!(dark > 50, "no title text ({dark} dark pixels)");
}

#[test]
fn an_fmu_plots_like_its_model_file() {
    let fmu = fmus::bundled("coulomb_friction");
    let dir = scratch("fmu");
    let (from_fmu, from_toml) = (dir.join("fmu.svg"), dir.join("toml.svg"));
    ok(lcsfmu(&[
        "simulate",
        fmu.to_str().unwrap(),
        "--plot",
        from_fmu.to_str().unwrap(),
    ]));
    ok(lcsfmu(&[
        "simulate",
        "models/coulomb_friction.toml",
        "--plot",
        from_toml.to_str().unwrap(),
    ]));
    let (a, b) = (
        std::fs::read(&from_fmu).unwrap(),
        std::fs::read(&from_toml).unwrap(),
    );
    assert!(a.len() > 10_000);
    assert_eq!(a, b);
}

/// The library API without a model: two runs on different time grids in one
/// panel (what a comparison draws), a gap where a value is not finite.
#[test]
fn api_draws_any_series() {
    let run = |name: &str, n: usize, scale: f64| Series {
        name: name.into(),
        points: (0..=n)
            .map(|k| (k as f64 / n as f64, scale * (k as f64).sin()))
            .collect(),
    };
    let mut coarse = run("run A: x", 10, 1.0);
    coarse.points[5].1 = f64::NAN;
    let fig = Figure {
        title: "two runs".into(),
        x_label: "time".into(),
        panels: vec![Panel {
            title: "x".into(),
            y_label: "m".into(),
            series: vec![coarse, run("run B: x", 1000, 2.0)],
        }],
    };
    let svg = plot::render_svg(&fig).unwrap();
    let dir = scratch("api");
    std::fs::write(dir.join("api.svg"), &svg).unwrap();
    let s = read_svg(&dir.join("api.svg"));
    // The coarse run in two pieces around its NaN, the fine one whole.
    assert_eq!(s.series_points, [5, 5, 1001]);
    assert!(s.texts.iter().any(|t| t == "run A: x"));
    let png = plot::render_png(&fig).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert!(plot::write(&fig, &dir.join("api.gif")).is_err());
    assert!(!dir.join("api.gif").exists());
}
