use lcsfmu::fmi2::Instance;
use lcsfmu::model::validate;
use std::path::Path;
fn main() {
    let m = validate::load(Path::new("/tmp/static10.toml")).unwrap();
    let vars = lcsfmu::fmi2::variables::variables(&m);
    let names: Vec<String> = vars.iter().map(|v| v.name.to_string()).collect();
    let mut i = Instance::new(m.clone(), "g");
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    let vr_w = names.iter().position(|n| n == "w").unwrap() as u32;
    let vr_abs = names.iter().position(|n| n == "b_abs").unwrap() as u32;
    let sweep: Vec<f64> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    for w in sweep {
        let r = i.set_reals(&[vr_w], &[w]);
        let mut v = [0.0];
        i.get_reals(&[vr_abs], &mut v).unwrap();
        println!("set w={w}: b_abs={} {:?}", v[0], r.err().map(|e| e.message));
    }
}
