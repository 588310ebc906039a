//! Support for `gradients_function!` and `value_and_gradients_function!`: compile-time
//! checks of `params = [...]` and selection of gradients from the all-parameters tuple.
//!
//! Not a public API: generated code reaches it through the facade's hidden path.

/// A differentiable function's parameters, in signature order: their names (`"self"` for
/// a receiver, `"_0"` for a pattern) and the positions of those that get no gradient.
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    pub(crate) function: &'static str,
    pub(crate) names: &'static [&'static str],
    pub(crate) constants: &'static [usize],
    /// Each parameter's `runtime::entry::Kind::DIFFERENTIABLE`, when the signature is
    /// built from a function's kinds (`constants` is then empty).
    pub(crate) flags: &'static [bool],
}

impl Signature {
    /// The signature of `function`, whose parameters are `names` and whose parameters at
    /// `constants` get no gradient.
    pub const fn new(
        function: &'static str,
        names: &'static [&'static str],
        constants: &'static [usize],
    ) -> Self {
        Signature {
            function,
            names,
            constants,
            flags: &[],
        }
    }
    /// The number of parameters.
    pub const fn len(&self) -> usize {
        self.names.len()
    }
    /// Whether the function has no parameters.
    pub const fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    /// The name of the parameter at `i`.
    pub const fn name(&self, i: usize) -> &'static str {
        self.names[i]
    }
    /// Whether the parameter at `i` gets a gradient.
    pub const fn differentiable(&self, i: usize) -> bool {
        if !self.flags.is_empty() {
            return self.flags[i];
        }
        let mut k = 0;
        while k < self.constants.len() {
            if self.constants[k] == i {
                return false;
            }
            k += 1;
        }
        true
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A fixed-capacity message built at compile time (const panics take one `&str`).
pub(crate) struct Message {
    buf: [u8; 2048],
    len: usize,
}

impl Message {
    pub(crate) const fn new() -> Self {
        Message {
            buf: [0; 2048],
            len: 0,
        }
    }
    const fn push(mut self, s: &str) -> Self {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && self.len < self.buf.len() {
            self.buf[self.len] = b[i];
            self.len += 1;
            i += 1;
        }
        self
    }
    const fn push_usize(mut self, mut n: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut k = 0;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            k += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while k > 0 && self.len < self.buf.len() {
            k -= 1;
            self.buf[self.len] = digits[k];
            self.len += 1;
        }
        self
    }
    const fn differentiable_list(self, sig: &Signature) -> Self {
        self.push("; the differentiable parameters of `")
            .push(sig.function)
            .push("` are: ")
            .differentiable_names(sig, true)
    }
    /// The differentiable parameters' names in backquotes, comma-separated, each with its
    /// position when `positions` (`(none)` without one).
    const fn differentiable_names(mut self, sig: &Signature, positions: bool) -> Self {
        let mut i = 0;
        let mut first = true;
        while i < sig.len() {
            if sig.differentiable(i) {
                if !first {
                    self = self.push(", ");
                }
                self = self.push("`").push(sig.name(i)).push("`");
                if positions {
                    self = self.push(" (").push_usize(i).push(")");
                }
                first = false;
            }
            i += 1;
        }
        if first {
            self = self.push("(none)");
        }
        self
    }
    /// `text` with every `{f}` in it replaced by `function`.
    pub(crate) const fn push_naming(mut self, text: &str, function: &str) -> Self {
        let t = text.as_bytes();
        let mut i = 0;
        while i < t.len() && self.len < self.buf.len() {
            if i + 3 <= t.len() && t[i] == b'{' && t[i + 1] == b'f' && t[i + 2] == b'}' {
                self = self.push(function);
                i += 3;
            } else {
                self.buf[self.len] = t[i];
                self.len += 1;
                i += 1;
            }
        }
        self
    }
    pub(crate) const fn fail(self) -> ! {
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(s) => panic!("{}", s),
            Err(_) => panic!("the helper cannot serve this function (its message was cut short)"),
        }
    }
}

/// The outcome of looking a `params` entry up: the parameter's position, or the message
/// saying why it cannot be selected. The helpers' generated constants panic with the
/// message in their own initializer, so the compile error is that message at the user's
/// `params` entry and nothing more.
pub struct Lookup {
    index: Option<usize>,
    message: Message,
}

impl Lookup {
    const fn found(index: usize) -> Self {
        Lookup {
            index: Some(index),
            message: Message::new(),
        }
    }
    const fn failed(message: Message) -> Self {
        Lookup {
            index: None,
            message,
        }
    }
    /// The parameter's position, if it can be selected.
    pub const fn index(&self) -> Option<usize> {
        self.index
    }
    /// Why it cannot be selected.
    pub const fn message(&self) -> &str {
        match core::str::from_utf8(self.message.buf.split_at(self.message.len).0) {
            Ok(s) => s,
            Err(_) => "invalid `params` for a differentiable function",
        }
    }
}

/// Looks up the parameter named `name`: its position, or why it has no gradient (unknown,
/// or constant), listing the differentiable parameters.
pub const fn lookup_name(sig: &Signature, name: &str) -> Lookup {
    let mut i = 0;
    while i < sig.len() {
        if str_eq(sig.name(i), name) {
            if sig.differentiable(i) {
                return Lookup::found(i);
            }
            if str_eq(name, "self") {
                return Lookup::failed(
                    Message::new()
                        .push("the receiver of `")
                        .push(sig.function)
                        .push(
                            "` is a constant: mark the method (or its `impl` block) \
                             `#[differentiable(self)]` to differentiate with respect to `self`",
                        )
                        .differentiable_list(sig),
                );
            }
            return Lookup::failed(
                Message::new()
                    .push("`")
                    .push(name)
                    .push("` is a constant parameter of `")
                    .push(sig.function)
                    .push(
                        "` (an integer, bool, string or #[no_grad] parameter) and has no gradient",
                    )
                    .differentiable_list(sig),
            );
        }
        i += 1;
    }
    Lookup::failed(
        Message::new()
            .push("`")
            .push(name)
            .push("` is not a parameter of `")
            .push(sig.function)
            .push("`")
            .differentiable_list(sig),
    )
}

/// The number of `sig`'s differentiable parameters.
pub const fn differentiable_count(sig: &Signature) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < sig.len() {
        if sig.differentiable(i) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The position of `sig`'s first differentiable parameter (`0` without one): the one
/// `jacobian!(f)` differentiates by.
pub const fn first_differentiable(sig: &Signature) -> usize {
    let mut i = 0;
    while i < sig.len() {
        if sig.differentiable(i) {
            return i;
        }
        i += 1;
    }
    0
}

/// A compile-time error where `jacobian!(f)` (without `params`) is used, when `f` cannot be
/// served: `reason` (its output, …) or a count of differentiable parameters other than one.
pub const fn check_one_parameter(reason: Option<&'static str>, sig: &Signature) {
    if let Some(r) = reason {
        panic!("{}", r);
    }
    let n = differentiable_count(sig);
    if n == 0 {
        Message::new()
            .push("`")
            .push(sig.function)
            .push("` has no differentiable parameter")
            .fail();
    }
    if n > 1 {
        Message::new()
            .push("`")
            .push(sig.function)
            .push("` has ")
            .push_usize(n)
            .push(" differentiable parameters (")
            .differentiable_names(sig, false)
            .push("): `jacobian!` needs exactly one; select it with `params = [\"")
            .push(sig.name(first_differentiable(sig)))
            .push("\"]`")
            .fail();
    }
}

/// Looks up the parameter at `position`: it, or why it has no gradient.
pub const fn lookup_position(sig: &Signature, position: usize) -> Lookup {
    if position >= sig.len() {
        return Lookup::failed(
            Message::new()
                .push("`")
                .push(sig.function)
                .push("` has no parameter at position ")
                .push_usize(position)
                .push(" (it has ")
                .push_usize(sig.len())
                .push(")")
                .differentiable_list(sig),
        );
    }
    if !sig.differentiable(position) {
        return Lookup::failed(
            Message::new()
                .push("parameter ")
                .push_usize(position)
                .push(" of `")
                .push(sig.function)
                .push("`, `")
                .push(sig.name(position))
                .push("`, is a constant and has no gradient")
                .differentiable_list(sig),
        );
    }
    Lookup::found(position)
}

/// The position of the parameter named `name`; a compile-time error naming it and listing
/// the differentiable parameters if it is unknown or constant.
pub const fn param_index(sig: &Signature, name: &str) -> usize {
    let l = lookup_name(sig, name);
    match l.index {
        Some(i) => i,
        None => l.message.fail(),
    }
}

/// Checks that `position` names a differentiable parameter; a compile-time error otherwise.
pub const fn param_position(sig: &Signature, position: usize) -> usize {
    let l = lookup_position(sig, position);
    match l.index {
        Some(i) => i,
        None => l.message.fail(),
    }
}

/// Moves element `K` out of a tuple of `Option`al gradients (each taken at most once:
/// `gradients_function!` refuses a parameter named twice).
pub trait TakeAt<const K: usize> {
    /// The element's type.
    type Item;
    /// Takes element `K`.
    fn take(&mut self) -> Self::Item;
}

macro_rules! take_at {
    ($([$($T:ident),+] => $(($K:tt $TK:ident))+;)*) => {
        $( take_at!(@each [$($T),+] $(($K $TK))+); )*
    };
    (@each $gens:tt $(($K:tt $TK:ident))+) => { $( take_at!(@one $gens $K $TK); )+ };
    (@one [$($T:ident),+] $K:tt $TK:ident) => {
        impl<$($T),+> TakeAt<$K> for ($(Option<$T>,)+) {
            type Item = $TK;
            #[inline(always)]
            fn take(&mut self) -> $TK {
                match self.$K.take() {
                    Some(gradient) => gradient,
                    None => panic!("autodiff: a gradient was selected twice"),
                }
            }
        }
        impl<$($T),+> PutAt<$K> for ($(Option<$T>,)+) {
            type Item = $TK;
            #[inline(always)]
            fn put(&mut self, item: $TK) {
                self.$K = Some(item);
            }
        }
    };
}

take_at! {
    [A] => (0 A);
    [A, B] => (0 A) (1 B);
    [A, B, C] => (0 A) (1 B) (2 C);
    [A, B, C, D] => (0 A) (1 B) (2 C) (3 D);
    [A, B, C, D, E] => (0 A) (1 B) (2 C) (3 D) (4 E);
    [A, B, C, D, E, F] => (0 A) (1 B) (2 C) (3 D) (4 E) (5 F);
    [A, B, C, D, E, F, G] => (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G);
    [A, B, C, D, E, F, G, H] => (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G) (7 H);
    [A, B, C, D, E, F, G, H, I] => (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G) (7 H) (8 I);
    [A, B, C, D, E, F, G, H, I, J] => (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G) (7 H) (8 I) (9 J);
    [A, B, C, D, E, F, G, H, I, J, K] =>
        (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G) (7 H) (8 I) (9 J) (10 K);
    [A, B, C, D, E, F, G, H, I, J, K, L] =>
        (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G) (7 H) (8 I) (9 J) (10 K) (11 L);
}

/// Puts element `K` into a tuple of `Option`s: the inverse of [`TakeAt`], for the buffers
/// `accumulate_gradients!` is handed in the order `params` names them.
pub trait PutAt<const K: usize> {
    /// The element's type.
    type Item;
    /// Sets element `K`.
    fn put(&mut self, item: Self::Item);
}

/// Places the buffers a caller hands over (one bare, several as a tuple, in the order the
/// selection names them) at their parameters' positions in the all-parameters tuple `F`
/// of `Option`s; the parameters not selected stay `None`.
#[diagnostic::on_unimplemented(
    message = "cannot take these gradient buffers: `{Self}` does not select from this \
        function's parameters",
    note = "a function with no differentiable parameter, or with more than 8, needs \
        `params = [...]` naming at most 8 differentiable parameters"
)]
pub trait Scatter<F> {
    /// What the caller hands over: one buffer bare, several as a tuple.
    type Input;
    /// The all-parameters tuple with the buffers in place.
    fn scatter(input: Self::Input) -> F;
}

impl<F: Default + PutAt<A>, const A: usize> Scatter<F> for Sel1<A> {
    type Input = <F as PutAt<A>>::Item;
    #[inline(always)]
    fn scatter(input: Self::Input) -> F {
        let mut all = F::default();
        <F as PutAt<A>>::put(&mut all, input);
        all
    }
}

/// Chooses which gradients of the all-parameters tuple `G` a helper returns.
#[diagnostic::on_unimplemented(
    message = "cannot take these gradients: `{Self}` does not select from this function's \
        parameters",
    note = "a function with no differentiable parameter, or with more than 8, needs \
        `params = [...]` naming at most 8 differentiable parameters"
)]
pub trait Select<G> {
    /// One gradient: the bare value; several: a tuple.
    type Output;
    /// Picks the gradients out of `grads`.
    fn select(grads: G) -> Self::Output;
    /// Whether the gradient of parameter `i` is selected: the adjoint buffers of the
    /// others are not allocated (nothing is added into them).
    #[inline(always)]
    fn picks(i: usize) -> bool {
        let _ = i;
        true
    }
}

/// The selection of a function that has no differentiable parameter (or more than 8):
/// it selects nothing, so `gradients_function!(f)` without `params` is refused.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSelection;

/// Selects the gradient of parameter `A` alone.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sel1<const A: usize>;

impl<G: TakeAt<A>, const A: usize> Select<G> for Sel1<A> {
    type Output = <G as TakeAt<A>>::Item;
    #[inline(always)]
    fn select(mut grads: G) -> Self::Output {
        <G as TakeAt<A>>::take(&mut grads)
    }
    #[inline(always)]
    fn picks(i: usize) -> bool {
        i == A
    }
}

/// A selection of one parameter, whose position the generated code reads
/// (`hessian!(f, params = ["x"])` fills the block of that parameter).
pub trait Single {
    /// The selected parameter's position among the function's parameters.
    const INDEX: usize;
}

impl<const A: usize> Single for Sel1<A> {
    const INDEX: usize = A;
}

macro_rules! selectors {
    ($($(#[$m:meta])* $name:ident<$($K:ident $i:tt),+>;)*) => {$(
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name<$(const $K: usize),+>;

        impl<G, $(const $K: usize),+> Select<G> for $name<$($K),+>
        where
            $(G: TakeAt<$K>,)+
        {
            type Output = ($(<G as TakeAt<$K>>::Item,)+);
            #[inline(always)]
            fn select(mut grads: G) -> Self::Output {
                ($(<G as TakeAt<$K>>::take(&mut grads),)+)
            }
            #[inline(always)]
            fn picks(i: usize) -> bool {
                false $(|| i == $K)+
            }
        }

        impl<Buffers: Default, $(const $K: usize),+> Scatter<Buffers> for $name<$($K),+>
        where
            $(Buffers: PutAt<$K>,)+
        {
            type Input = ($(<Buffers as PutAt<$K>>::Item,)+);
            #[inline(always)]
            fn scatter(input: Self::Input) -> Buffers {
                let mut all = Buffers::default();
                $(<Buffers as PutAt<$K>>::put(&mut all, input.$i);)+
                all
            }
        }
    )*};
}

selectors! {
    /// Selects two gradients.
    Sel2<A 0, B 1>;
    /// Selects three gradients.
    Sel3<A 0, B 1, C 2>;
    /// Selects four gradients.
    Sel4<A 0, B 1, C 2, D 3>;
    /// Selects five gradients.
    Sel5<A 0, B 1, C 2, D 3, E 4>;
    /// Selects six gradients.
    Sel6<A 0, B 1, C 2, D 3, E 4, F 5>;
    /// Selects seven gradients.
    Sel7<A 0, B 1, C 2, D 3, E 4, F 5, H 6>;
    /// Selects eight gradients.
    Sel8<A 0, B 1, C 2, D 3, E 4, F 5, H 6, I 7>;
}

/// A scalar output type (`f32`, `f64`), the only kind `gradients_function!` differentiates.
#[diagnostic::on_unimplemented(
    message = "`gradients_function!` and `value_and_gradients_function!` need a function returning \
        a scalar (f32 or f64), not `{Self}`",
    label = "this function's output is not a scalar",
    note = "use `vjp!(f)` to pull back a cotangent of any output type"
)]
pub trait ScalarOutput: crate::Real {}
impl ScalarOutput for f32 {}
impl ScalarOutput for f64 {}

/// Holds for every selection `S` when `O`, the function's output, is a scalar; gives the
/// seed of the reverse sweep (one). A bound on the selection rather than on the output
/// type, so that it is checked where `gradients_function!` is used, not where the
/// function is defined.
#[diagnostic::on_unimplemented(
    message = "`gradients_function!` and `value_and_gradients_function!` need a function returning \
        a scalar (f32 or f64), not `{O}`",
    label = "this function's output is not a scalar",
    note = "use `vjp!(f)` to pull back a cotangent of any output type"
)]
pub trait ScalarOutputFor<O: crate::Differentiable> {
    /// The cotangent the reverse sweep starts from: one.
    fn seed() -> O::Tangent;
}

impl<S, O: ScalarOutput> ScalarOutputFor<O> for S {
    #[inline(always)]
    fn seed() -> O::Tangent {
        O::one()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIG: Signature = Signature::new("f", &["a", "n", "b"], &[1]);

    #[test]
    fn finds_names_and_positions() {
        assert_eq!(param_index(&SIG, "b"), 2);
        assert_eq!(param_position(&SIG, 0), 0);
    }

    #[test]
    #[should_panic(
        expected = "`zz` is not a parameter of `f`; the differentiable parameters of `f` are: \
            `a` (0), `b` (2)"
    )]
    fn unknown_name_lists_the_differentiable_parameters() {
        param_index(&SIG, "zz");
    }

    #[test]
    #[should_panic(expected = "`n` is a constant parameter of `f`")]
    fn constant_name_is_refused() {
        param_index(&SIG, "n");
    }

    #[test]
    #[should_panic(
        expected = "the receiver of `m` is a constant: mark the method (or its \
        `impl` block) `#[differentiable(self)]`"
    )]
    fn a_constant_receiver_says_how_to_make_it_differentiable() {
        const METHOD: Signature = Signature::new("m", &["self", "x"], &[0]);
        param_index(&METHOD, "self");
    }

    #[test]
    #[should_panic(expected = "has no parameter at position 7 (it has 3)")]
    fn position_out_of_range_is_refused() {
        param_position(&SIG, 7);
    }

    #[test]
    fn selects_in_the_order_asked() {
        let g = (Some(1.0), Some(NoTangentLike), Some(3.0));
        let _ = NoTangentLike == NoTangentLike;
        assert_eq!(<Sel2<2, 0> as Select<_>>::select(g), (3.0, 1.0));
        assert_eq!(<Sel1<2> as Select<_>>::select(g), 3.0);
    }

    #[derive(Clone, Copy, Default, Debug, PartialEq)]
    struct NoTangentLike;
}
