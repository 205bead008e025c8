//! Writes the material-only net (`Network::material`) to a file:
//! `cargo run --release -p nnue --example write_material_net -- nets/material-32.nnue`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: write_material_net OUT.nnue");
        std::process::exit(2);
    };
    let net = match nnue::Network::material(32) {
        Ok(net) => net,
        Err(e) => {
            eprintln!("cannot make the material net: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = std::fs::write(&path, net.to_bytes()) {
        eprintln!("cannot write {path}: {e}");
        std::process::exit(2);
    }
    println!("wrote {path}: hidden 32, fingerprint {:016x}", net.fingerprint());
}
