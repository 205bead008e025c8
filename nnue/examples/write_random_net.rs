//! Writes a net of pseudo-random weights (`Network::random`, the ranges a trained net uses)
//! for speed measurements at any hidden width:
//! `cargo run --release -p nnue --example write_random_net -- HIDDEN OUT.nnue [BUCKETS] [SEED]`
//! (8 output buckets and seed 1 by default). `scripts/nnue-widths.sh` benches these.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: write_random_net HIDDEN OUT.nnue [BUCKETS=8] [SEED=1]";
    let (Some(hidden), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let number = |text: Option<&String>, default: u64, what: &str| -> u64 {
        match text.map(|t| t.parse::<u64>()) {
            None => default,
            Some(Ok(n)) => n,
            Some(Err(_)) => {
                eprintln!("bad {what} {:?}; {usage}", text.map_or("", |t| t.as_str()));
                std::process::exit(2);
            }
        }
    };
    let hidden = number(Some(hidden), 0, "HIDDEN") as usize;
    let buckets = number(args.get(2), 8, "BUCKETS") as usize;
    let seed = number(args.get(3), 1, "SEED");
    let net = match nnue::Network::random(hidden, buckets, seed) {
        Ok(net) => net,
        Err(e) => {
            eprintln!("cannot make a {hidden}-wide net with {buckets} buckets: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = std::fs::write(path, net.to_bytes()) {
        eprintln!("cannot write {path}: {e}");
        std::process::exit(2);
    }
    println!(
        "wrote {path}: hidden {hidden}, {buckets} buckets, seed {seed}, fingerprint {:016x}",
        net.fingerprint()
    );
}
