//! The checker: judges a (request, response) against every clause of
//! semantics §6. Each clause is judged from its own definition; only
//! `matches-reference` calls the reference reducer.
