//! The MIOpen release of a real install: Debian's `libmiopen1` 6.4.3 (ROCm 6.4.3) carries
//! MIOpen 3.4.0, read from the library's bytes, and the model chosen for it says that it is the
//! nearest, not its own.

use rocpath_explain::miopen::install;

#[test]
fn debians_libmiopen_is_miopen_3_4_0_and_gets_the_nearest_model_said_so() {
    let Some(lib) =
        rocpath_testdata::corpus_path("libmiopen1", "usr/lib/x86_64-linux-gnu/libMIOpen.so.1.0")
    else {
        return;
    };
    assert_eq!(install::version_of(&lib).unwrap().as_deref(), Some("3.4.0"));
    let c = rocpath_miopen::model::release::for_release("3.4.0").unwrap();
    assert!(!c.exact);
    assert_eq!(c.shipped.name, "2d1fd997");
    assert!(
        c.note
            .unwrap()
            .contains("no model derived from MIOpen 3.4.0")
    );
    // Found beside its database folder as Debian lays it out (/usr/share/miopen/db).
    let usr = lib.ancestors().nth(3).unwrap();
    assert_eq!(
        install::library_near(&usr.join("share/miopen/db")).as_deref(),
        Some(lib.as_path())
    );
}
