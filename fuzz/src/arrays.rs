//! Random array programs: ndarray code over an `n × n` matrix, a vector and a scalar —
//! arithmetic with every broadcasting pattern, matrix and vector products, transposes,
//! reductions (all elements and along an axis), elementwise functions and `mapv` with
//! paths and closures, rows, columns and element indexing, branches on constants, and
//! loops updating a local array.

use super::{Func, Node, Param, Rng, Stmt};

/// The shape of a value: the matrix's, the vector's, or a scalar.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    M,
    V,
    S,
}

struct ArrayGen<'a> {
    rng: &'a mut Rng,
    /// Names bound so far, with their shapes.
    bindings: Vec<(String, Shape)>,
    next_id: u32,
    counter: usize,
    /// The matrix is `n × n`.
    n: usize,
}

impl ArrayGen<'_> {
    fn stmt(&mut self, node: Node) -> Stmt {
        self.next_id += 1;
        Stmt {
            id: self.next_id,
            essential: false,
            node,
        }
    }

    fn fresh(&mut self) -> String {
        self.counter += 1;
        format!("t{}", self.counter)
    }

    fn name_of(&mut self, shape: Shape) -> String {
        let names: Vec<String> = self
            .bindings
            .iter()
            .filter(|(_, s)| *s == shape)
            .map(|(n, _)| n.clone())
            .collect();
        self.rng.pick(&names).clone()
    }

    /// An array operand as a reference (`&t3`, `&(…)`, a parameter as it is), or a scalar
    /// expression.
    fn operand(&mut self, shape: Shape, depth: usize) -> String {
        let e = self.expr(shape, depth);
        match shape {
            Shape::S => format!("({e})"),
            _ => reference(&e),
        }
    }

    /// A receiver: a name or a parenthesized expression.
    fn receiver(&mut self, shape: Shape, depth: usize) -> String {
        let e = self.expr(shape, depth);
        if is_name(&e) {
            e
        } else {
            format!("({e})")
        }
    }

    fn index(&mut self) -> usize {
        self.rng.below(self.n)
    }

    /// An expression of `shape` whose values stay moderate (|·| of a few units).
    fn expr(&mut self, shape: Shape, depth: usize) -> String {
        if depth == 0 || self.rng.chance(0.3) {
            return self.name_of(shape);
        }
        let d = depth - 1;
        match shape {
            Shape::M => match self.rng.below(9) {
                0 => {
                    let (a, b) = (self.operand(Shape::M, d), self.operand(Shape::M, d));
                    format!("{a} + {b}")
                }
                1 => {
                    let a = self.operand(Shape::M, d);
                    let s = [Shape::M, Shape::V, Shape::S][self.rng.below(3)];
                    let b = self.operand(s, d);
                    format!("{a} - {b}")
                }
                2 => {
                    let a = self.operand(Shape::M, d);
                    let s = [Shape::M, Shape::V, Shape::S][self.rng.below(3)];
                    let b = self.operand(s, d);
                    format!("({a} * {b}).mapv(f64::tanh)")
                }
                3 => {
                    let a = self.operand(Shape::M, d);
                    let s = [Shape::M, Shape::V][self.rng.below(2)];
                    let b = self.receiver(s, d);
                    format!("{a} / &{b}.mapv(|q| q * q + 1.0)")
                }
                4 => {
                    let (a, b) = (self.receiver(Shape::M, d), self.operand(Shape::M, d));
                    format!("{a}.dot({b}) * 0.3")
                }
                5 => {
                    let a = self.receiver(Shape::M, d);
                    let f = self.rng.pick(&[
                        "mapv(f64::tanh)",
                        "mapv(f64::sin)",
                        "mapv(|q| q * q * 0.5 - q)",
                        "mapv(|q| (q * 0.5).exp())",
                        "cos()",
                        "t().to_owned()",
                    ]);
                    format!("{a}.{f}")
                }
                6 => {
                    let (s, a) = (self.operand(Shape::S, d), self.operand(Shape::M, d));
                    format!("{s} * {a}")
                }
                7 => {
                    let a = self.operand(Shape::V, d);
                    let b = self.operand(Shape::M, d);
                    format!("{a} + {b}")
                }
                _ => {
                    let a = self.receiver(Shape::M, d);
                    format!("-{a}.mapv(f64::sin)")
                }
            },
            Shape::V => match self.rng.below(9) {
                0 => {
                    let (m, v) = (self.receiver(Shape::M, d), self.operand(Shape::V, d));
                    format!("{m}.dot({v}) * 0.3")
                }
                1 => {
                    let (v, m) = (self.receiver(Shape::V, d), self.operand(Shape::M, d));
                    format!("{v}.dot({m}) * 0.3")
                }
                2 => {
                    let m = self.receiver(Shape::M, d);
                    let axis = self.rng.below(2);
                    if self.rng.chance(0.5) {
                        format!("{m}.sum_axis(Axis({axis})) * 0.3")
                    } else {
                        format!("{m}.mean_axis(Axis({axis})).unwrap()")
                    }
                }
                3 => {
                    let m = self.receiver(Shape::M, d);
                    let i = self.index();
                    let which = self.rng.pick(&["row", "column"]);
                    format!("{m}.{which}({i}).to_owned()")
                }
                4 => {
                    let (a, b) = (self.operand(Shape::V, d), self.operand(Shape::V, d));
                    let op = self.rng.pick(&["+", "-"]);
                    format!("{a} {op} {b}")
                }
                5 => {
                    let (a, s) = (self.operand(Shape::V, d), self.operand(Shape::S, d));
                    format!("({a} * {s}).mapv(f64::sin)")
                }
                6 => {
                    let a = self.receiver(Shape::V, d);
                    let f = self.rng.pick(&[
                        "mapv(f64::tanh)",
                        "mapv(|q| q.max(0.25) * 0.5)",
                        "sin()",
                        "powi(2)",
                    ]);
                    format!("{a}.{f}")
                }
                7 => {
                    let (a, b) = (self.operand(Shape::V, d), self.receiver(Shape::V, d));
                    format!("{a} / &{b}.mapv(|q| q * q + 1.0)")
                }
                _ => {
                    let (s, a) = (self.operand(Shape::S, d), self.operand(Shape::V, d));
                    format!("{s} - {a}")
                }
            },
            Shape::S => match self.rng.below(8) {
                0 => {
                    let (a, b) = (self.receiver(Shape::V, d), self.operand(Shape::V, d));
                    format!("{a}.dot({b}) * 0.3")
                }
                1 => {
                    let m = self.receiver(Shape::M, d);
                    format!("{m}.sum() * 0.1")
                }
                2 => {
                    let v = self.receiver(Shape::V, d);
                    format!("{v}.mean().unwrap()")
                }
                3 => {
                    let m = self.name_of(Shape::M);
                    let (i, j) = (self.index(), self.index());
                    format!("{m}[[{i}, {j}]]")
                }
                4 => {
                    let v = self.name_of(Shape::V);
                    let i = self.index();
                    format!("{v}[{i}]")
                }
                5 => {
                    let (a, b) = (self.expr(Shape::S, d), self.expr(Shape::S, d));
                    format!("(({a}) * ({b})).tanh()")
                }
                6 => {
                    let v = self.receiver(Shape::V, d);
                    format!("{v}.sum().sin()")
                }
                _ => {
                    let (a, b) = (self.expr(Shape::S, d), self.expr(Shape::S, d));
                    format!("({a}) + ({b}) * 0.5")
                }
            },
        }
    }

    fn random_shape(&mut self) -> Shape {
        [Shape::M, Shape::V, Shape::S][self.rng.weighted(&[3.0, 3.0, 1.0])]
    }

    fn statement(&mut self) -> Vec<Stmt> {
        let shape = self.random_shape();
        let name = self.fresh();
        let value = owned(self.expr(shape, 2), shape);
        let mut out = Vec::new();
        match self.rng.below(5) {
            // a branch on a constant
            0 => {
                let other = owned(self.expr(shape, 2), shape);
                out.push(self.stmt(Node::Line(format!("let mut {name} = {value};"))));
                let inner = self.stmt(Node::Line(format!("{name} = {other};")));
                let k = self.rng.range(2, 3);
                out.push(self.stmt(Node::Compound(
                    vec![(format!("if n % {k} == 0 {{"), vec![inner])],
                    "}".into(),
                )));
            }
            // a loop updating a local array
            1 if shape != Shape::S => {
                out.push(self.stmt(Node::Line(format!("let mut {name} = {value};"))));
                let update = match shape {
                    Shape::M => {
                        let s = self.expr(Shape::S, 1);
                        format!("{name} = (&{name} * ({s})).mapv(f64::sin) + &{name} * 0.5;")
                    }
                    _ => {
                        let m = self.receiver(Shape::M, 1);
                        format!(
                            "{name} = ({m}.dot(&{name}) * 0.3).mapv(f64::tanh) + &{name} * 0.5;"
                        )
                    }
                };
                let inner = self.stmt(Node::Line(update));
                out.push(self.stmt(Node::Compound(
                    vec![("for _ in 0..n {".to_string(), vec![inner])],
                    "}".into(),
                )));
            }
            _ => out.push(self.stmt(Node::Line(format!("let {name} = {value};")))),
        }
        self.bindings.push((name, shape));
        out
    }

    /// A scalar result mixing the last bindings.
    fn result(&mut self) -> String {
        let mut parts = Vec::new();
        for (name, shape) in self.bindings.iter().rev().take(3) {
            parts.push(match shape {
                Shape::M => format!("{name}.sum() * 0.2"),
                Shape::V => format!("{name}.dot({}) * 0.1", reference(name)),
                Shape::S => name.clone(),
            });
        }
        parts.join(" + ")
    }
}

/// `e` as a reference: the parameters `x` and `v` already are one.
fn reference(e: &str) -> String {
    if e == "x" || e == "v" {
        e.to_string()
    } else if is_name(e) {
        format!("&{e}")
    } else {
        format!("&({e})")
    }
}

/// An owned value of an array expression (a bare name is copied: `let` and assignments
/// bind owned arrays).
fn owned(e: String, shape: Shape) -> String {
    if shape != Shape::S && is_name(&e) {
        format!("{e}.to_owned()")
    } else {
        e
    }
}

fn is_name(e: &str) -> bool {
    e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A random array function `p{index}(x: &Array2<f64>, v: &Array1<f64>, s: f64, n: usize)`.
pub(crate) fn gen_array_function(rng: &mut Rng, index: usize) -> Func {
    let n = 3;
    let point_seed = rng.next_u64();
    let steps = rng.range(1, 3);
    let params = vec![
        Param::Matrix("x".into(), n),
        Param::Vector("v".into(), n),
        Param::Scalar("s".into()),
        Param::Count("n".into(), steps),
    ];
    let mut g = ArrayGen {
        rng,
        bindings: vec![
            ("x".into(), Shape::M),
            ("v".into(), Shape::V),
            ("s".into(), Shape::S),
        ],
        next_id: 0,
        counter: 0,
        n,
    };
    let mut body = Vec::new();
    for _ in 0..g.rng.range(2, 5) {
        body.extend(g.statement());
    }
    let ret = g.result();
    Func {
        index,
        params,
        body,
        ret,
        point_seed,
        mag: 5.0,
        cost: 50.0,
        helpers: Vec::new(),
        selected: Vec::new(),
        features: Default::default(),
        calls_second_order: false,
    }
}
