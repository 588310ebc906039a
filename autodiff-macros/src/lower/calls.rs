//! Calls: float methods and their path forms (`x.sin()`, `f64::sin(x)`), calls of other
//! differentiable functions and methods.

use super::*;

impl Lowering<'_> {
    pub(super) fn method_call(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Value {
        let name = m.method.to_string();
        if let Some(v) = self.checked_conversion(e) {
            return v;
        }
        if prims::is_piecewise_constant(&name) {
            return self.verbatim(e);
        }
        // a method of a user's struct (`d.dot(&d)`, `a.sub(b)`), whatever its name: the
        // annotated `impl`'s, not a primitive's
        // (`self.helper(x)` is a sibling's call, through `Self::`, below)
        let on_self = matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident("self"));
        if name != "clone" && !on_self && self.names_struct(&m.receiver) {
            let recv = self.expr(&m.receiver);
            let mut args = vec![self.operand(recv, m.receiver.span())];
            for a in &m.args {
                // (a buffer or a float lent `&mut`, as to a function)
                let arg = match self.lent_buffer(a) {
                    Some(lent) => lent,
                    None => self.operand_of(a),
                };
                args.push(arg);
            }
            if let Some(v) = self.method_form_call(e, m, args) {
                // (an operator's method, `a.sub(b)`, gives a struct like its receiver)
                if let (Value::Var(v), "add" | "sub" | "mul" | "div" | "neg") = (&v, name.as_str())
                {
                    self.vars[v.0].owned_struct = true;
                }
                return v;
            }
        }
        if let Some(v) = self.reduction(e, m) {
            return v;
        }
        if let Some(v) = self.collected(e, m) {
            return v;
        }
        if let Some(v) = self.pushed(e, m) {
            return v;
        }
        if let Some(v) = self.vec_mutation(e, m) {
            return v;
        }
        if let Some(v) = self.array_map(e, m) {
            return v;
        }
        if let Some(v) = self.split_at(e, m) {
            return v;
        }
        // `x.into()` of a float (`let y: f64 = x.into()`): a conversion to the float type
        // the context infers
        if name == "into" && m.args.is_empty() && self.references_active(&m.receiver) {
            let x = self.operand_of(&m.receiver);
            if !self.operand_maybe_array(&x) {
                let ty: syn::Type = syn::parse_quote!(_);
                return self.prim(Prim::Cast { ty: Box::new(ty) }, vec![x], e.span());
            }
        }
        // (`o.map(f)` of an `Option`/`Result` before ndarray's `map`; ndarray's
        // `a.mean().unwrap()` before `Option::unwrap`)
        if let Some(v) = self.option_map(m) {
            return v;
        }
        // `x.to_owned()` of a slice, `Vec` or array: its copy, as `x.to_vec()` (ndarray's
        // `to_owned` below is of an array)
        if name == "to_owned" && m.args.is_empty() && self.known_sequence(&m.receiver) {
            let x = self.operand_of(&m.receiver);
            return self.owned_copy(x, m.method.clone(), e.span());
        }
        if let Some(v) = self.array_method(e, m) {
            return v;
        }
        if let Some(v) = self.option_method(e, m) {
            return v;
        }
        // `h.mapv_inplace(f)` on a local array: `h = h.mapv(f)`
        if name == "mapv_inplace" && m.args.len() == 1 {
            if let Some(Place::Cell(_)) = self.place(&m.receiver) {
                let (recv, f) = (&m.receiver, &m.args[0]);
                let value = syn::parse_quote_spanned!(e.span()=> #recv.mapv(#f));
                let value = self.synth.get("mapv_inplace", value);
                return self.assign(recv, &value, None, e);
            }
        }
        // (a method of a parameter of a user's type, or of its field, may be a method of an
        // annotated `impl`: see `method_form_call`)
        if rules::method_rule(&name).is_none()
            && !on_self
            && name != "clone"
            && name != "sin_cos"
            && name != "to_vec"
            && !self.receiver_of_user_type(&m.receiver)
            && !self.made_value_receiver(m)
            && !self.unit_struct(&m.receiver)
        {
            return self.query(e, &m.method);
        }
        let recv = self.expr(&m.receiver);
        if (name == "to_vec" || name == "clone") && m.args.is_empty() {
            // a copy (of a sequence, owned; `clone` as written: of a reference, the
            // reference), its gradient the copy's
            let x = self.operand(recv, m.receiver.span());
            return self.owned_copy(x, m.method.clone(), e.span());
        }
        let mut args = vec![self.operand(recv, m.receiver.span())];
        let sibling = on_self && rules::method_rule(&name).is_none();
        for a in &m.args {
            if sibling {
                if let Some(lent) = self.lent_buffer(a) {
                    args.push(lent);
                    continue;
                }
            }
            // (`self.helper(&w)` of a constant local: see `constant_local_ref`)
            match self.constant_local_ref(a).filter(|_| sibling) {
                Some(local) => args.push(local),
                None => args.push(self.operand_of(a)),
            }
        }
        if sibling {
            // `self.helper(x)`: a sibling differentiable method, through `Self::helper`.
            let method = &m.method;
            let turbofish = &m.turbofish;
            // (a receiver carrying a gradient needs a sibling differentiable in it)
            if self.operand_active(&args[0]) {
                let receiver = crate::companions::companion(method, "RECEIVER", true);
                let check = quote_spanned!(method.span()=>
                    ::autodiff::__private::methods::sibling_receiver(Self::#receiver)
                );
                self.inactive(check, method.span());
            }
            let func: syn::ExprPath =
                syn::parse_quote_spanned!(method.span()=> Self::#method #turbofish);
            let active = self.lend(&args);
            let v = self.new_var(active);
            let maybe_array = self.method_result_maybe_array(&args);
            self.push(v, None, Rhs::Call { func, args }, e.span());
            self.vars[v.0].maybe_array = maybe_array;
            self.made_values.insert(v);
            return Value::Var(v);
        }
        if !args.iter().any(|a| self.operand_active(a)) {
            // every operand a constant (`stop_gradient(x).to_bits()`): kept as written
            let (recv, rest) = (args[0].tokens(), args[1..].iter().map(Operand::tokens));
            let (method, turbofish) = (&m.method, &m.turbofish);
            return self.inactive(
                quote_spanned!(e.span()=> #recv.#method #turbofish(#(#rest),*)),
                e.span(),
            );
        }
        // (a receiver known to be a float keeps the primitive's message; a value a call
        // made may be of a struct, `Point::new(a, b)`, whose `impl` has the method)
        let receiver_not_float = self.operand_maybe_array(&args[0])
            || !self.operand_active(&args[0])
            || self.made_value_receiver(m);
        if rules::method_rule(&name).is_none() && receiver_not_float {
            if let Some(v) = self.method_form_call(e, m, args.clone()) {
                return v;
            }
        }
        self.method_prim(e, &m.method, None, args)
    }

    /// `p.map(|x| …)` on a parameter that is an array of literal length `N`: the array of
    /// the closure's values at `p[0]` … `p[N - 1]` (the closure inlined at each).
    fn array_map(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        if m.method != "map" || m.args.len() != 1 {
            return None;
        }
        let syn::Expr::Closure(c) = &m.args[0] else {
            return None;
        };
        let syn::Expr::Path(p) = &*m.receiver else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        let (n, elem) = self.array_lens.get(&name)?.clone();
        if c.inputs.len() != 1 || !matches!(self.lookup(&name), Some(Binding::Value(_))) {
            return None;
        }
        // the closure's parameter typed as the element (`|q| q.sin()`: inlined at each
        // element, the closure as written is never called, so nothing else infers it)
        let mut c = c.clone();
        if let syn::Pat::Ident(_) = &c.inputs[0] {
            let pat = c.inputs[0].clone();
            c.inputs[0] = syn::Pat::Type(syn::PatType {
                attrs: Vec::new(),
                pat: Box::new(pat),
                colon_token: Default::default(),
                ty: Box::new(elem),
            });
        }
        let recv = &m.receiver;
        let f = syn::Ident::new("__autodiff_map", Span::mixed_site());
        let items = (0..n).map(|k| quote!(#f(#recv[#k])));
        let block: syn::Expr = syn::parse_quote_spanned! {e.span()=>
            {
                let #f = #c;
                [#(#items),*]
            }
        };
        let block = self.synth.get("array_map", block);
        Some(self.expr(&block))
    }

    /// `x.split_at(k)` of a differentiable sequence: the pair of sub-slices `&x[..k]` and
    /// `&x[k..]` (each one's adjoint the same sub-slice of `x`'s).
    fn split_at(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        if m.method != "split_at" || m.args.len() != 1 || !self.references_active(&m.receiver) {
            return None;
        }
        let place @ Place::Var(_) = self.place(&m.receiver)? else {
            return None;
        };
        let k = &m.args[0];
        if self.value_references_active(k) {
            self.errors.push_spanned(k, diag::ACTIVE_INDEX);
        }
        let k = self.operand_of(k);
        let mut halves = Vec::new();
        for (start, end) in [(None, Some(k.clone())), (Some(k), None)] {
            let range = crate::ir::SliceRange {
                start,
                end,
                inclusive: false,
                element: false,
            };
            let v = self.new_var(self.place_active(place));
            self.push(v, None, Rhs::SubSlice { place, range }, e.span());
            halves.push(Value::Var(v));
        }
        Some(Value::Tuple(halves))
    }

    /// `v.push(x)` on a local `let mut` `Vec`, with a differentiable `x`: the `Vec` grows by
    /// one element, then the element at its old length is written — an indexed write, whose
    /// reverse moves the element's adjoint to `x` (and the growth's reverse pops it).
    fn pushed(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        // (a constant pushed onto a differentiable `Vec` too: its index moves with it)
        if m.method != "push" || m.args.len() != 1 || !self.references_active(e) {
            return None;
        }
        let Some(Place::Cell(cell)) = self.place(&m.receiver) else {
            return None;
        };
        if self.cells[cell.0].bound_to.is_some() {
            // a `&mut` parameter: its length is the caller's
            return None;
        }
        let value = self.operand_of(&m.args[0]);
        if matches!(&value, Operand::Var(v) if self.vars[v.0].owned_struct) {
            self.struct_cells.insert(cell);
        }
        let c = cell.ident();
        let index = self.inactive(quote!(#c.len()), e.span());
        let index = self.operand(index, e.span());
        self.snapshots.remove(&cell);
        self.block.stmts.push(Stmt::Grow {
            cell,
            len: index.clone(),
            value: value.clone(),
        });
        if self.operand_active(&value) {
            self.found_active_cells
                .insert(active_key(self.cell_keys[cell.0]));
        }
        self.block
            .stmts
            .push(Stmt::WriteIndex { cell, index, value });
        Some(Value::Tuple(Vec::new()))
    }

    /// `v.extend(it)` (of any iterator a `for` loop takes; the forms of a slice's items are
    /// loops already, see `iterators::effects_as_loops`), `v.truncate(n)`, `v.clear()`,
    /// `v.retain(|x| …)`, `v.pop()`, `v.insert(i, x)`, `v.remove(i)` and `v.swap_remove(i)`
    /// of a local `Vec` holding or given differentiable values: lowered as the `push`es,
    /// element moves by index and whole assignments they amount to (an assignment of another
    /// length keeps the old value's extent for the reverse sweep). A bad index panics with
    /// the message `Vec`'s method gives.
    fn vec_mutation(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        let name = m.method.to_string();
        let known = matches!(
            (name.as_str(), m.args.len()),
            (
                "extend" | "truncate" | "retain" | "remove" | "swap_remove",
                1
            ) | ("clear" | "pop", 0)
                | ("insert", 2)
        );
        if !known || !self.references_active(e) {
            return None;
        }
        let Some(Place::Cell(cell)) = self.place(&m.receiver) else {
            return None;
        };
        if self.cells[cell.0].bound_to.is_some() {
            // a `&mut` parameter: its length is the caller's
            return None;
        }
        let v = &m.receiver;
        let span = e.span();
        let item = syn::Ident::new("__autodiff_item", span);
        let block: syn::Expr = match name.as_str() {
            "extend" => {
                let it = &m.args[0];
                syn::parse_quote_spanned! {span=>
                    for #item in (#it) {
                        #v.push(#item.clone());
                    }
                }
            }
            "truncate" => {
                let n = &m.args[0];
                syn::parse_quote_spanned! {span=>
                    #v = #v[..::core::cmp::min(#n, #v.len())].to_vec()
                }
            }
            "clear" => syn::parse_quote_spanned! {span=> #v = ::std::vec::Vec::new() },
            "pop" => syn::parse_quote_spanned! {span=>
                {
                    let __autodiff_len = #v.len();
                    if __autodiff_len == 0 {
                        None
                    } else {
                        let __autodiff_item = #v[__autodiff_len - 1].clone();
                        #v.truncate(__autodiff_len - 1);
                        Some(__autodiff_item)
                    }
                }
            },
            // (the elements after the index moved one place, by index)
            "insert" => {
                let (i, x) = (&m.args[0], &m.args[1]);
                syn::parse_quote_spanned! {span=>
                    {
                        let __autodiff_index: usize = #i;
                        let __autodiff_item = #x;
                        let __autodiff_len = #v.len();
                        assert!(
                            __autodiff_index <= __autodiff_len,
                            "insertion index (is {}) should be <= len (is {})",
                            __autodiff_index,
                            __autodiff_len
                        );
                        #v.push(__autodiff_item.clone());
                        for __autodiff_k in (__autodiff_index + 1..__autodiff_len + 1).rev() {
                            #v[__autodiff_k] = #v[__autodiff_k - 1].clone();
                        }
                        #v[__autodiff_index] = __autodiff_item;
                    }
                }
            }
            "remove" | "swap_remove" => {
                let i = &m.args[0];
                let (message, moved): (&str, syn::Stmt) = if name == "remove" {
                    (
                        "removal index (is {}) should be < len (is {})",
                        syn::parse_quote_spanned! {span=>
                            for __autodiff_k in __autodiff_index..__autodiff_len - 1 {
                                #v[__autodiff_k] = #v[__autodiff_k + 1].clone();
                            }
                        },
                    )
                } else {
                    (
                        "swap_remove index (is {}) should be < len (is {})",
                        syn::parse_quote_spanned! {span=>
                            #v[__autodiff_index] = #v[__autodiff_len - 1].clone();
                        },
                    )
                };
                syn::parse_quote_spanned! {span=>
                    {
                        let __autodiff_index: usize = #i;
                        let __autodiff_len = #v.len();
                        assert!(
                            __autodiff_index < __autodiff_len,
                            #message,
                            __autodiff_index,
                            __autodiff_len
                        );
                        let __autodiff_item = #v[__autodiff_index].clone();
                        #moved
                        #v.truncate(__autodiff_len - 1);
                        __autodiff_item
                    }
                }
            }
            _ => {
                // `retain(|x| keep)`: the kept elements pushed in order
                let syn::Expr::Closure(c) = &m.args[0] else {
                    return None;
                };
                if c.inputs.len() != 1 || c.asyncness.is_some() {
                    return None;
                }
                // (the closure's parameter is the loop's pattern, its type left out)
                let pat = match &c.inputs[0] {
                    syn::Pat::Type(t) => &*t.pat,
                    p => p,
                };
                let keep = &c.body;
                let kept = syn::Ident::new("__autodiff_kept", span);
                let index = syn::Ident::new("__autodiff_index", span);
                syn::parse_quote_spanned! {span=>
                    {
                        let mut #kept = ::std::vec::Vec::with_capacity(#v.len());
                        for (#index, #pat) in #v.iter().enumerate() {
                            if #keep {
                                #kept.push(#v[#index].clone());
                            }
                        }
                        #v = #kept
                    }
                }
            }
        };
        let block = self.synth.get("vec_mutation", block);
        Some(self.expr(&block))
    }

    /// A call of a method without a derivative rule (`x.nrows()`, `v.iter().count()`): kept
    /// as written. When it reads a differentiable value, the type of its result decides at
    /// compile time — an integer, `bool`, shape or ordering is a constant; anything else is
    /// refused at the method with the fix (the runtime's `ConstantQuery`).
    fn query(&mut self, e: &syn::Expr, method: &syn::Ident) -> Value {
        // A call that may change a value in place is never a query, whatever it returns
        // (`v.drain(..).count()` moves elements and their adjoints).
        if let Some((span, method)) = mutation_in(e) {
            if self.references_active(e) {
                let message = match method {
                    Some(m) => diag::method_mutates_in_call(&m),
                    None => diag::MUTATION_IN_CALL.to_string(),
                };
                self.errors.push(span, message);
                return Value::Inline(syn::parse_quote!(()));
            }
        }
        // A differentiable value's bits are not a constant: `from_bits` can make them a
        // float again, whose gradient would be silently zero.
        if let Some(span) = bits_in(e) {
            if self.references_active(&without_stopped(e)) {
                self.errors.push(span, diag::BITS_OF_DIFFERENTIABLE_VALUE);
                return Value::Inline(syn::parse_quote!(()));
            }
        }
        let tokens = self.renamed(e).to_token_stream();
        let reads_active = VarId::mentioned_in(&tokens)
            .into_iter()
            .any(|v| self.vars.get(v.0).is_some_and(|v| v.active))
            || CellId::mentioned_in(&tokens)
                .into_iter()
                .any(|c| self.cells.get(c.0).is_some_and(|c| c.active));
        if !reads_active {
            return self.inactive(tokens, e.span());
        }
        // The marker type is named after the method, so rustc's message names it; the
        // argument is a name spanned at the method, so the message points there.
        let marker = method.clone();
        self.inactive(
            quote_spanned!(method.span()=> {
                #[allow(non_camel_case_types)]
                struct #marker;
                let result = #tokens;
                ::autodiff::query::constant_query::<#marker, _>(result)
            }),
            e.span(),
        )
    }

    /// `dist.cdf(x)`: a method, not a primitive, of a receiver that is not known to be a
    /// float, called with differentiable values — a method of an annotated `impl` block,
    /// through its companions (which take the receiver as `self`, so the receiver's type
    /// need not be known). Only for a receiver that is a parameter or a parameter's field
    /// (`dist`, `self.normal`); the methods of std's collections, ranges and iterators are
    /// not taken for one.
    fn method_form_call(
        &mut self,
        e: &syn::Expr,
        m: &syn::ExprMethodCall,
        args: Vec<Operand>,
    ) -> Option<Value> {
        // (a local is left out: it may be of any type, `Normal::default()` of a crate whose
        // methods are not differentiable, and the message below is the clearer one)
        let name = m.method.to_string();
        let of_parameter = receiver_root(&m.receiver).is_some_and(|r| {
            self.param_names.contains(&r) && matches!(self.lookup(&r), Some(Binding::Value(_)))
        }) || self.made_value_receiver(m)
            || self.names_struct(&m.receiver)
            || self.unit_struct(&m.receiver);
        if !of_parameter || prims::is_std_container_method(&name) {
            return None;
        }
        let turbofish = m
            .turbofish
            .as_ref()
            .map(|t| syn::AngleBracketedGenericArguments {
                colon2_token: None,
                lt_token: t.lt_token,
                args: t.args.clone(),
                gt_token: t.gt_token,
            });
        let func = crate::companions::method_form(&m.method, turbofish.as_ref());
        // `d.det(&m)`: as a function's call `det(&m)`
        let mut args = args;
        // (a local the body made is owned: lent, as a parameter's `&self` is; so is a
        // `let mut` struct's value)
        let struct_cell = matches!(self.place(&m.receiver),
            Some(Place::Cell(c)) if self.struct_valued_cells.contains(&c));
        if let (Some(Operand::Var(v)), true) =
            (args.first(), self.made_value_receiver(m) || struct_cell)
        {
            args[0] = Operand::Ref(*v);
        }
        // A receiver carrying a gradient needs a method differentiable with respect to it
        // (checked at compile time: `runtime::methods::SelfDifferentiable`).
        if self.operand_active(&args[0]) {
            let recv = args[0].tokens();
            let id = crate::companions::method_id(&m.method);
            let check = quote_spanned!(m.method.span()=>
                ::autodiff::__private::methods::receiver_differentiable::<#id, _>(&#recv)
            );
            self.inactive(check, m.method.span());
        }
        for (a, arg) in m.args.iter().zip(args.iter_mut().skip(1)) {
            if matches!(arg, Operand::MutRef { .. }) {
                continue;
            }
            *arg = match self.constant_local_ref(a) {
                Some(local) => local,
                None => self.by_reference(a, arg.clone()),
            };
        }
        self.lend(&args);
        let v = self.new_var(true);
        let maybe_array = self.method_result_maybe_array(&args);
        self.push(v, None, Rhs::Call { func, args }, e.span());
        self.vars[v.0].maybe_array = maybe_array;
        self.made_values.insert(v);
        Some(Value::Var(v))
    }

    /// A copy of `x` made by `method` (`to_vec`, `to_owned`, `clone`), its gradient the
    /// copy's.
    fn owned_copy(&mut self, x: Operand, method: syn::Ident, span: Span) -> Value {
        let v = self.new_var(self.operand_active(&x));
        // (a copy of a sequence of structs, `ps.to_vec()`: its elements are borrowed too)
        if matches!(&x, Operand::Var(x) if self.struct_vec_values.contains(x)) {
            self.struct_vec_values.insert(v);
        }
        self.push(v, None, Rhs::Owned { of: x, method }, span);
        Value::Var(v)
    }

    /// Whether `e` names a value known to be a slice, `Vec` or fixed-size array (see
    /// `Lowering::sequences`: a parameter of such a type among them).
    fn known_sequence(&self, e: &syn::Expr) -> bool {
        let syn::Expr::Path(p) = e else { return false };
        let Some(id) = p.path.get_ident() else {
            return false;
        };
        match self.lookup(&id.to_string()) {
            Some(Binding::Value(v)) => match v.clone().deref() {
                Value::Var(v) => self.sequences.contains(&v),
                _ => false,
            },
            _ => false,
        }
    }

    /// `&w` of a local `w` holding no differentiable value (`let w = vec![1.0, 2.0];`): a
    /// reference to the value the forward sweep owns, as `&v` of a differentiable local is,
    /// so a callee's pullback is handed it again from the pullback closure's own copy
    /// rather than keeping a reference to the forward sweep's local.
    fn constant_local_ref(&self, a: &syn::Expr) -> Option<Operand> {
        let syn::Expr::Reference(r) = a else {
            return None;
        };
        let syn::Expr::Path(p) = &*r.expr else {
            return None;
        };
        let id = p.path.get_ident()?.to_string();
        if r.mutability.is_some() || self.param_names.contains(&id) || self.references_active(a) {
            return None;
        }
        match self.lookup(&id)? {
            Binding::Value(Value::Var(v)) => Some(Operand::Ref(*v)),
            _ => None,
        }
    }

    /// An argument of a call of a differentiable function or method, `operand` its value:
    /// `f(&x)` hands the callee a reference (and `x` may be an array), unless nothing
    /// differentiable is in it (`&TABLE`, `&data`: kept as written, reference and all).
    fn by_reference(&self, a: &syn::Expr, operand: Operand) -> Operand {
        match (a, operand) {
            (syn::Expr::Reference(r), Operand::Var(v))
                if r.mutability.is_none() && (self.references_active(a) || expr_may_exit(a)) =>
            {
                Operand::Ref(v)
            }
            (_, operand) => operand,
        }
    }

    /// Whether the local `name` holds a value a differentiable call or a struct literal
    /// made (see `Lowering::made_values`).
    fn made_value(&self, name: &str) -> bool {
        match self.lookup(name) {
            Some(Binding::Value(Value::Var(v))) => self.made_values.contains(v),
            // (an item of a loop over a field's elements, `for layer in &self.layers`)
            Some(Binding::Value(Value::Ref(r))) => {
                matches!(&**r, Value::Var(v) if self.made_values.contains(v))
            }
            // (a unit struct, `let s = Square;`)
            Some(Binding::Value(Value::Inline(e))) => self.unit_struct(e),
            _ => false,
        }
    }

    /// Whether `m` may be a method of an annotated `impl` called on a local named as it is
    /// that a differentiable call or a struct literal made (`b.plus(a)`): not a method of
    /// `Option`, `Result`, the std collections or a query (`o.is_some()`, `v.len()`).
    fn made_value_receiver(&self, m: &syn::ExprMethodCall) -> bool {
        let name = m.method.to_string();
        let std_method = prims::is_std_container_method(&name)
            || name.starts_with("is_")
            || name.starts_with("to_")
            || name.starts_with("as_")
            || name.starts_with("unwrap")
            || matches!(
                name.as_str(),
                "len"
                    | "shape"
                    | "dim"
                    | "ndim"
                    | "nrows"
                    | "ncols"
                    | "clone"
                    | "ok"
                    | "err"
                    | "expect"
                    | "partial_cmp"
                    | "total_cmp"
                    | "cmp"
                    | "eq"
                    | "ne"
                    | "or"
                    | "or_else"
                    | "ok_or"
                    | "ok_or_else"
                    | "filter"
                    | "copied"
                    | "cloned"
            );
        !std_method
            && matches!(&*m.receiver, syn::Expr::Path(p) if p.path.get_ident()
                .is_some_and(|i| !self.param_names.contains(&i.to_string())
                    && self.made_value(&i.to_string())))
    }

    /// Whether `recv` is a parameter of a type that is not a number or a container of
    /// numbers (`dist: &StudentsT`), or a field of one (`self.normal`, `m.layer`).
    fn receiver_of_user_type(&self, recv: &syn::Expr) -> bool {
        let field = matches!(recv, syn::Expr::Field(_));
        receiver_root(recv).is_some_and(|r| {
            r == "self"
                || self.param_names.contains(&r)
                    && (field || !self.numeric_params.contains(&r))
                    && matches!(self.lookup(&r), Some(Binding::Value(_)))
        })
    }

    /// Whether a method's result may be an array: when a differentiable operand may be
    /// (a constant receiver — a distribution, a model's configuration — says nothing of it).
    fn method_result_maybe_array(&self, args: &[Operand]) -> bool {
        args.iter()
            .enumerate()
            .any(|(i, a)| self.operand_maybe_array(a) && (i > 0 || self.operand_active(a)))
    }

    /// A differentiable call of the function itself: one error at the callee's name.
    /// `T::from(x).unwrap()`, `F::from(x).expect("…")`, `T::from_f64(x).unwrap()`: the
    /// conversion of a value to a float type (`T` a float type parameter, `f32`, `f64`),
    /// which succeeds for every float and integer: differentiated as the cast `x as T`.
    fn checked_conversion(&mut self, e: &syn::Expr) -> Option<Value> {
        let (owner, x) = super::float_conversion(e)?;
        let name = owner.to_string();
        let float_owner = prims::is_float_type_name(&name) || self.type_params.contains(&name);
        if !float_owner || !self.references_active(x) {
            return None;
        }
        let ty: syn::Type = syn::parse_quote!(#owner);
        let x = self.operand_of(x);
        Some(self.prim(Prim::Cast { ty: Box::new(ty) }, vec![x], e.span()))
    }

    pub(super) fn method_prim(
        &mut self,
        e: &syn::Expr,
        method: &syn::Ident,
        callee: Option<syn::ExprPath>,
        args: Vec<Operand>,
    ) -> Value {
        let name = method.to_string();
        // `x.sin_cos()`, `f64::sin_cos(x)`: the pair of the two rules' values
        if name == "sin_cos" && args.len() == 1 {
            let part = |this: &mut Self, part: &str| {
                let id = syn::Ident::new(part, method.span());
                let mut callee = callee.clone();
                if let Some(last) = callee.as_mut().and_then(|p| p.path.segments.last_mut()) {
                    last.ident = id.clone();
                }
                this.method_prim(e, &id, callee, args.clone())
            };
            let sin = part(self, "sin");
            let cos = part(self, "cos");
            return Value::Tuple(vec![sin, cos]);
        }
        // (`x.sqrt()` and `T::sqrt(x)` of the float type parameter; `f64::cos(x)` names its
        // type, which the runtime's generic function would not)
        let qualified = self.float_type.as_ref().is_some_and(|t| match &callee {
            None => true,
            Some(p) => p.path.segments.first().is_some_and(|s| &s.ident == t),
        });
        match rules::method_rule(&name) {
            Some(rule) if rule.arity() == args.len() => self.prim(
                Prim::Method {
                    rule,
                    method: method.clone(),
                    callee,
                    qualified,
                },
                args,
                e.span(),
            ),
            Some(rule) => {
                let n = rule.arity() - 1;
                self.unsupported(e, &diag::method_arity(&name, n))
            }
            None => {
                self.errors
                    .push(method.span(), diag::method_not_differentiable(&name));
                Value::Inline(syn::parse_quote!(()))
            }
        }
    }

    pub(super) fn call(&mut self, e: &syn::Expr, c: &syn::ExprCall) -> Value {
        let syn::Expr::Path(func) = &*c.func else {
            return self.unsupported(&c.func, &diag::call_of_expression());
        };
        let Some(last) = func.path.segments.last().map(|s| s.ident.clone()) else {
            return self.verbatim(e);
        };
        if stopped(c).is_some() {
            return self.verbatim(e);
        }
        // `Vec::from(x)`, `<[f64]>::to_vec(x)`: an owned copy of a sequence
        let segs: Vec<String> = func
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let vec_from = func.qself.is_none() && segs == ["Vec", "from"];
        let slice_to_vec = last == "to_vec"
            && segs.len() == 1
            && matches!(&func.qself, Some(q) if matches!(&*q.ty, syn::Type::Slice(_)));
        if (vec_from || slice_to_vec) && c.args.len() == 1 && self.references_active(&c.args[0]) {
            let x = self.operand_of(&c.args[0]);
            return self.owned_copy(x, syn::Ident::new("to_vec", last.span()), e.span());
        }
        // `std::mem::swap(&mut a, &mut b)` of two `let mut` locals: each written the other's
        // value
        let swap = func.qself.is_none()
            && matches!(
                segs.iter().map(String::as_str).collect::<Vec<_>>()[..],
                ["std" | "core", "mem", "swap"] | ["mem", "swap"]
            );
        if swap && c.args.len() == 2 && self.references_active(e) {
            let cell = |l: &Self, a: &syn::Expr| match a {
                syn::Expr::Reference(r) if r.mutability.is_some() => match &*r.expr {
                    syn::Expr::Path(p) => match l.lookup(&p.path.get_ident()?.to_string())? {
                        Binding::Cell(c) => Some(*c),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            };
            return match (cell(self, &c.args[0]), cell(self, &c.args[1])) {
                (Some(a), Some(b)) => {
                    let (va, vb) = (self.read_cell(a, e.span()), self.read_cell(b, e.span()));
                    self.write_cell(a, Operand::Var(vb));
                    self.write_cell(b, Operand::Var(va));
                    Value::Tuple(Vec::new())
                }
                _ => self.unsupported(e, diag::SWAP),
            };
        }
        if let Some(v) = self.option_call(e, c) {
            return v;
        }
        if let Some(id) = func.path.get_ident() {
            match self.lookup(&id.to_string()) {
                Some(Binding::Closure(k)) => {
                    let k = *k;
                    return self.inline_closure(e, k, c);
                }
                Some(_) => return self.unsupported(&c.func, diag::LOCAL_CLOSURE_CALL),
                None => {}
            }
        }
        // `f64::sin(x)`, `T::powi(x, 2)`, `Float::max(a, b)`: the path form of a method.
        let segs = &func.path.segments;
        let float_owner = |ty: &syn::Type| match ty {
            syn::Type::Path(p) => p.path.get_ident().is_some_and(|id| {
                let id = id.to_string();
                prims::is_float_type_name(&id) || self.type_params.contains(&id)
            }),
            _ => false,
        };
        // (`<Type as Trait>::method(&d, x)` of another type is a call of a method)
        let path_form = func.qself.as_ref().is_some_and(|q| float_owner(&q.ty))
            || func.qself.is_none() && segs.len() >= 2 && {
                let owner = segs[segs.len() - 2].ident.to_string();
                prims::is_float_type_name(&owner)
                    || owner == "Float"
                    || owner == "Real"
                    || self.type_params.contains(&owner)
            };
        let name = last.to_string();
        if path_form && prims::is_piecewise_constant(&name) {
            return self.verbatim(e);
        }
        let mut args = Vec::new();
        let mut views = Vec::new();
        for a in &c.args {
            if let Some(view) = self.mut_view_arg(a) {
                views.push((a, view));
            }
            if let Some(lent) = self.lent_buffer(a) {
                args.push(lent);
                continue;
            }
            if let Some(local) = self.constant_local_ref(a).filter(|_| !path_form) {
                args.push(local);
                continue;
            }
            let arg = self.operand_of(a);
            args.push(if path_form {
                arg
            } else {
                self.by_reference(a, arg)
            });
        }
        if path_form {
            if name == "from" && args.len() == 1 && func.qself.is_none() {
                let owner = &segs[segs.len() - 2].ident;
                let ty: syn::Type = syn::parse_quote!(#owner);
                let x = args.remove(0);
                return self.prim(Prim::Cast { ty: Box::new(ty) }, vec![x], e.span());
            }
            return self.method_prim(e, &last, Some(func.clone()), args);
        }
        self.split_disjoint_ranges(&mut args);
        let active = self.lend(&args);
        if active {
            // one error per call: the views come from one split
            if let Some((a, (buffer, how))) = views.into_iter().next() {
                let name = quote::ToTokens::to_token_stream(a).to_string();
                self.errors
                    .push_spanned(a, diag::mut_view_passed(&name, &buffer, &how));
            }
        }
        let v = self.new_var(active);
        if active {
            self.push(
                v,
                None,
                Rhs::Call {
                    func: func.clone(),
                    args,
                },
                e.span(),
            );
            self.made_values.insert(v);
        } else {
            let arg_tokens = args.iter().map(Operand::tokens);
            let span = e.span();
            self.push(
                v,
                None,
                Rhs::Inactive(quote_spanned!(span=> #func(#(#arg_tokens),*))),
                span,
            );
        }
        Value::Var(v)
    }

    /// Whether a call of `args` is differentiable, and the buffers it is lent `&mut`
    /// (`f(&mut buf)`, `self.step(&mut x)`): their snapshots are stale after the call, and
    /// they are differentiable once a differentiable value may reach them.
    fn lend(&mut self, args: &[Operand]) -> bool {
        let lent: Vec<CellId> = args.iter().filter_map(Operand::lent_cell).collect();
        let active = args.iter().any(|a| self.operand_active(a))
            || lent.iter().any(|c| self.cells[c.0].active);
        for c in &lent {
            self.snapshots.remove(c);
            if active {
                self.found_active_cells
                    .insert(active_key(self.cell_keys[c.0]));
            }
        }
        active
    }

    /// `&mut buf` (a `let mut` buffer) or a `&mut` parameter passed on: the buffer lent to a
    /// callee that writes it.
    ///
    /// `&mut buf[a..b]` (every range form): that range of the buffer, whose adjoint's same
    /// range is the callee's shadow.
    fn lent_buffer(&mut self, a: &syn::Expr) -> Option<Operand> {
        // a view handed on as it is: the range it stands for, which the callee may read or
        // write (see `views`)
        let (a, view) = match views::handed_on(a) {
            Some(range) => (range, true),
            None => (a, false),
        };
        let (place, explicit) = match a {
            syn::Expr::Reference(r) if r.mutability.is_some() => (&*r.expr, true),
            syn::Expr::Path(_) => (a, false),
            _ => return None,
        };
        if let syn::Expr::Index(ix) = place {
            if !explicit {
                return None;
            }
            let Some(Place::Cell(cell)) = self.place(&ix.expr) else {
                return None;
            };
            let range = match &*ix.index {
                syn::Expr::Range(r) => self.slice_range(r),
                // one element of a buffer of floats (`step(&mut b[i], …)` of an `x: &mut
                // f64` parameter); a row of a buffer of rows is not lent this way
                _ if self.vec_cells.contains(&cell) => return None,
                i => {
                    if self.value_references_active(i) {
                        self.errors.push_spanned(i, diag::ACTIVE_INDEX);
                    }
                    let i = self.operand_of(i);
                    crate::ir::SliceRange {
                        start: Some(i.clone()),
                        end: Some(i),
                        inclusive: true,
                        element: true,
                    }
                }
            };
            let reborrow = self.cells[cell.0].bound_to.is_some();
            let keep = view.then(|| {
                let k = self.new_var(false);
                let (c, r) = (cell.ident(), range.tokens());
                let rt = crate::companions::rt();
                let kept = quote::quote!(#rt::again::Lent::keep(&#c[#r]));
                self.push(k, None, Rhs::Inactive(kept), a.span());
                k
            });
            return Some(Operand::MutRef {
                cell,
                reborrow,
                range: Some(Box::new(range)),
                keep,
                alias: None,
            });
        }
        let Some(Place::Cell(cell)) = self.place(place) else {
            return None;
        };
        let reborrow = self.cells[cell.0].bound_to.is_some();
        if !explicit && !reborrow {
            return None;
        }
        if self.cells[cell.0].bound_scalar {
            // an `x: &mut f64` parameter handed on (`step(x, …)`): its one element
            let zero = Operand::Inline(syn::parse_quote!(0usize));
            return Some(Operand::MutRef {
                cell,
                reborrow,
                range: Some(Box::new(crate::ir::SliceRange {
                    start: Some(zero.clone()),
                    end: Some(zero),
                    inclusive: true,
                    element: true,
                })),
                keep: None,
                alias: None,
            });
        }
        // handed on as it is: what a reading callee is handed again (emitted only where the
        // reverse sweep hands it, its type inferred from the callee's pullback)
        let keep = (!explicit).then(|| {
            let k = self.new_var(false);
            let c = cell.ident();
            let rt = crate::companions::rt();
            self.push(
                k,
                None,
                Rhs::Inactive(quote::quote!(#rt::again::Lent::keep(&*#c))),
                a.span(),
            );
            k
        });
        Some(Operand::MutRef {
            cell,
            reborrow,
            range: None,
            keep,
            alias: None,
        })
    }
}

impl Lowering<'_> {
    /// Several ranges of one buffer lent to one call (the views `split_at_mut` made, see
    /// `views`): the buffer is split into them before the call (`views::disjoint`), and
    /// the call is handed the parts.
    fn split_disjoint_ranges(&mut self, args: &mut [Operand]) {
        let mut by_cell: Vec<(CellId, Vec<usize>)> = Vec::new();
        for (k, a) in args.iter().enumerate() {
            if let Operand::MutRef {
                cell,
                range: Some(_),
                ..
            } = a
            {
                match by_cell.iter_mut().find(|(c, _)| c == cell) {
                    Some((_, ks)) => ks.push(k),
                    None => by_cell.push((*cell, vec![k])),
                }
            }
        }
        let rt = crate::companions::rt();
        for (cell, ks) in by_cell.into_iter().filter(|(_, ks)| ks.len() > 1) {
            let mut names = Vec::new();
            let mut bounds = Vec::new();
            for &k in &ks {
                let Operand::MutRef {
                    range: Some(r),
                    alias,
                    ..
                } = &mut args[k]
                else {
                    continue;
                };
                self.next_part += 1;
                let name = quote::format_ident!("__autodiff_part{}", self.next_part);
                bounds.push(r.bounds(Operand::tokens));
                *alias = Some(name.clone());
                names.push(name);
            }
            let c = cell.ident();
            self.block.stmts.push(Stmt::Effect(quote!(
                let [#(#names),*] = #rt::views::disjoint(&mut #c[..], [#(#bounds),*]);
            )));
        }
    }

    /// `buf.split_at_mut(k)`, `buf[a..b].chunks_mut(k)`, `buf.iter_mut()`, … of a `let mut`
    /// buffer: the buffer's name and the method.
    pub(super) fn mut_view_of_buffer(&self, e: &syn::Expr) -> Option<(String, String)> {
        let (method, mut base) = match e {
            syn::Expr::MethodCall(m) => {
                let method = m.method.to_string();
                if !MUT_VIEWS.contains(&method.as_str()) {
                    return self.mut_view_of_buffer(&m.receiver);
                }
                (format!("`{method}`"), &*m.receiver)
            }
            // `let h = &mut buf;`, `let h = &mut buf[a..b];`
            syn::Expr::Reference(r) if r.mutability.is_some() => {
                // (spans do not join on stable: the text is the tokens', respaced)
                let text = quote::ToTokens::to_token_stream(e)
                    .to_string()
                    .replace("& mut ", "&mut ")
                    .replace(" [", "[")
                    .replace(" .. ", "..")
                    .replace(" ..", "..")
                    .replace(".. ", "..");
                (format!("`{text}`"), e)
            }
            syn::Expr::Paren(p) => return self.mut_view_of_buffer(&p.expr),
            _ => return None,
        };
        loop {
            match base {
                syn::Expr::Index(ix) => base = &ix.expr,
                syn::Expr::Paren(p) => base = &p.expr,
                syn::Expr::Reference(r) => base = &r.expr,
                _ => break,
            }
        }
        let syn::Expr::Path(p) = base else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        match self.lookup(&name) {
            Some(Binding::Cell(_)) => Some((name, method)),
            // a view of a view (`h.split_at_mut(k)` of `let h = &mut buf[a..b]`)
            Some(_) => self.mut_views.get(&name).map(|(b, _)| (b.clone(), method)),
            None => None,
        }
    }

    /// A call argument naming a `&mut` view of a `let mut` buffer.
    fn mut_view_arg(&self, a: &syn::Expr) -> Option<(String, String)> {
        let syn::Expr::Path(p) = a else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        match self.lookup(&name) {
            Some(Binding::Cell(_)) | None => None,
            Some(_) => self.mut_views.get(&name).cloned(),
        }
    }
}

/// Methods that give `&mut` views into their receiver.
const MUT_VIEWS: &[&str] = &[
    "split_at_mut",
    "split_first_mut",
    "split_last_mut",
    "chunks_mut",
    "chunks_exact_mut",
    "iter_mut",
    "get_mut",
    "first_mut",
    "last_mut",
    "as_mut",
    "as_mut_slice",
];

/// Methods of the standard library's collections and iterators that change their receiver.
const MUTATING_METHODS: &[&str] = &[
    "push",
    "pop",
    "insert",
    "remove",
    "swap_remove",
    "truncate",
    "clear",
    "resize",
    "resize_with",
    "extend",
    "extend_from_slice",
    "append",
    "drain",
    "retain",
    "retain_mut",
    "dedup",
    "dedup_by",
    "dedup_by_key",
    "split_off",
    "swap",
    "reverse",
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "sort_unstable_by",
    "sort_unstable_by_key",
    "select_nth_unstable",
    "rotate_left",
    "rotate_right",
    "fill",
    "fill_with",
    "copy_from_slice",
    "clone_from_slice",
    "iter_mut",
    "as_mut",
    "as_mut_slice",
    "get_mut",
    "first_mut",
    "last_mut",
    "chunks_mut",
    "split_at_mut",
    "take",
    "replace",
    "mapv_inplace",
    "map_inplace",
    "assign",
];

/// The first method in `e` that may change a value in place (its span and name), or an
/// assignment or `&mut` inside it (in a closure argument, say).
pub(super) fn mutation_in(e: &syn::Expr) -> Option<(Span, Option<String>)> {
    struct Finder(Option<(Span, Option<String>)>);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let name = m.method.to_string();
            if self.0.is_none() && MUTATING_METHODS.contains(&name.as_str()) {
                self.0 = Some((m.method.span(), Some(name)));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
            if self.0.is_none() {
                self.0 = Some((a.span(), None));
            }
        }
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            use syn::BinOp::*;
            let compound = matches!(
                b.op,
                AddAssign(_)
                    | SubAssign(_)
                    | MulAssign(_)
                    | DivAssign(_)
                    | RemAssign(_)
                    | BitXorAssign(_)
                    | BitAndAssign(_)
                    | BitOrAssign(_)
                    | ShlAssign(_)
                    | ShrAssign(_)
            );
            if self.0.is_none() && compound {
                self.0 = Some((b.span(), None));
            }
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
            if self.0.is_none() && r.mutability.is_some() {
                self.0 = Some((r.span(), None));
            }
            syn::visit::visit_expr_reference(self, r);
        }
    }
    let mut f = Finder(None);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

/// The first call in `e` reinterpreting a float's bits (`to_bits`, `to_le_bytes`, …).
fn bits_in(e: &syn::Expr) -> Option<Span> {
    struct Finder(Option<Span>);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let name = m.method.to_string();
            if self.0.is_none()
                && matches!(
                    name.as_str(),
                    "to_bits" | "to_le_bytes" | "to_be_bytes" | "to_ne_bytes"
                )
            {
                self.0 = Some(m.method.span());
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut f = Finder(None);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

/// `e` with every `stop_gradient(…)` replaced by a constant: what it reads that carries a
/// gradient.
fn without_stopped(e: &syn::Expr) -> syn::Expr {
    struct Stop;
    impl syn::visit_mut::VisitMut for Stop {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            if matches!(e, syn::Expr::Call(c) if stopped(c).is_some()) {
                *e = syn::parse_quote!(0.0);
                return;
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    let mut e = e.clone();
    syn::visit_mut::VisitMut::visit_expr_mut(&mut Stop, &mut e);
    e
}

/// The name a receiver is reached through (`m`, `self.normal`, `&d`, `*p`, and
/// `stop_gradient(m)`: `m`'s method, its receiver a constant), if it is one.
fn receiver_root(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(ToString::to_string),
        syn::Expr::Field(f) => receiver_root(&f.base),
        syn::Expr::Reference(r) => receiver_root(&r.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => receiver_root(&u.expr),
        syn::Expr::Paren(p) => receiver_root(&p.expr),
        syn::Expr::Call(c) => receiver_root(stopped(c)?),
        _ => None,
    }
}

/// The argument of `stop_gradient(x)`.
fn stopped(c: &syn::ExprCall) -> Option<&syn::Expr> {
    let named = matches!(&*c.func, syn::Expr::Path(f) if f.path.segments.last()
        .is_some_and(|s| s.ident == "stop_gradient"));
    (named && c.args.len() == 1).then(|| &c.args[0])
}
