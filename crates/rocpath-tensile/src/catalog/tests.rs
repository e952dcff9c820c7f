#![allow(clippy::unwrap_used, clippy::panic)]
use super::*;
use crate::yaml_to_msgpack;

fn dec(yaml: &str) -> Catalog {
    decode(&yaml_to_msgpack(yaml).unwrap()).unwrap()
}

#[test]
fn a_matching_table_keeps_file_order_entries_and_speeds() {
    let c = dec(r#"
solutions: []
library:
  type: Matching
  properties: [{type: FreeSizeA, index: 0}, {index: 0, type: FreeSizeB}, {type: BoundSize, index: 0}]
  distance: Euclidean
  table:
  - {key: [64, 64, 64], index: 7, speed: 1.5}
  - {key: [32, 32, 32], index: 3, speed: 2}
"#);
    let Some(Node::Matching(m)) = c.library else {
        panic!("not a matching node")
    };
    assert_eq!(m.dims, 3);
    assert_eq!(m.distance, Ok(Distance::Euclidean));
    assert_eq!(m.key(1), &[32, 32, 32]);
    assert!(matches!(m.entries[0].value, EntryValue::Index(7)));
    assert_eq!(m.entries[1].speed, 2.0);
    assert_eq!(
        m.properties,
        [
            Property::FreeSizeA(0),
            Property::FreeSizeB(0),
            Property::BoundSize(0)
        ]
    );
}

#[test]
fn unknown_kinds_are_kept_by_name() {
    let c = dec(r#"
solutions: []
library:
  type: Problem
  rows:
  - predicate: {type: SomethingNew, value: 3}
    library: {type: Granularity}
  - predicate: {type: And, value: [{type: TruePred}, {type: StrideAEqual, index: 0, value: 1}]}
    library: {type: Matching, properties: [{type: FreeSizeA, index: 0}], distance: Chebyshev, table: []}
"#);
    let Some(Node::Problem(rows)) = c.library else {
        panic!()
    };
    assert_eq!(
        rows[0].predicate,
        Pred::Leaf(ProblemLeaf::Unknown("SomethingNew".into()))
    );
    assert!(matches!(&rows[0].library, Node::Unknown(k) if k == "Granularity"));
    assert_eq!(
        rows[1].predicate,
        Pred::And(vec![
            Pred::True,
            Pred::Leaf(ProblemLeaf::StrideEqual {
                tensor: 0,
                index: 0,
                value: 1
            })
        ])
    );
    let Node::Matching(m) = &rows[1].library else {
        panic!()
    };
    assert_eq!(m.distance, Err("Chebyshev".to_string()));
}

#[test]
fn a_key_of_the_wrong_length_is_an_error_with_its_offset() {
    let b = yaml_to_msgpack(
        "library: {type: Matching, properties: [{type: FreeSizeA, index: 0}], distance: Euclidean, table: [{key: [1, 2], index: 0}]}\n",
    )
    .unwrap();
    let e = decode(&b).unwrap_err();
    assert!(matches!(e, crate::Error::Catalog { .. }), "{e}");
}

#[test]
fn solutions_carry_their_predicates_and_size_mapping() {
    let c = dec(r#"
solutions:
- name: Cijk_Ailk_Bljk_SB_MT64x64x8
  index: 12
  hardwarePredicate: {type: TruePred}
  problemPredicate: {type: And, value: [{type: TypesEqual, value: [Float, Float, Float, Float]}, {type: BufferLoadOffsetLimitCheck, value: {ShiftPtrElemA: 0, ShiftPtrElemB: 1, DUorMT0: 8, DUorMT1: 64}}, {type: BetaValue, value: "1"}, {type: SizeInRange, index: 0, value: {min: 4096, max: 9223372036854775807}}]}
  taskPredicate: {type: WorkspaceCheck}
  debugKernel: false
  sizeMapping: {workGroup: [16, 16, 1], macroTile: [64, 64, 1], depthU: 8, globalSplitU: 1, persistentKernel: 0, sourceKernel: false, workspaceSizePerElemC: 0, persistentKernelAlongBatch: false, globalAccumulation: 0}
  problemType: {operationIdentifier: Contraction_l_Ailk_Bljk_Cijk_Dijk, aType: Float, bType: Float, cType: Float, dType: Float, useBeta: true, highPrecisionAccumulate: false, stridedBatched: true}
library: {type: Single, index: 12}
"#);
    let s = &c.solutions[0];
    assert_eq!(s.index, 12);
    assert_eq!(s.size_mapping.macro_tile, [64, 64]);
    assert_eq!(s.task, Pred::Leaf(TaskLeaf::WorkspaceCheck));
    let Pred::And(v) = &s.problem else { panic!() };
    assert_eq!(
        v[0],
        Pred::Leaf(ProblemLeaf::TypesEqual([DataType::Float; 4]))
    );
    assert_eq!(
        v[1],
        Pred::Leaf(ProblemLeaf::BufferLoadOffsetLimitCheck(BufferLoadCheck {
            shift_a: 0,
            shift_b: 1,
            du_or_mt0: 8,
            du_or_mt1: 64
        }))
    );
    assert_eq!(v[2], Pred::Leaf(ProblemLeaf::BetaValue(ScalarValue::One)));
    assert!(matches!(
        v[3],
        Pred::Leaf(ProblemLeaf::SizeInRange { min: 4096, .. })
    ));
    assert!(matches!(c.library, Some(Node::Single(12))));
}

proptest::proptest! {
    #[test]
    fn never_panics(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600)) {
        let _ = decode(&data);
    }
}
