"""The Windows site-file check, as a function of the security descriptor: runs on every OS."""

import pytest

from engine.winacl import rights_mask, sddl_problem

PROGRAMDATA = ("O:SYG:SYD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICIIO;GA;;;CO)(A;OICI;0x1200a9;;;BU)"
               "(A;CI;DCLCRPCR;;;BU)")
LOCKED = "O:BAG:SYD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1200a9;;;BU)"


ROOT_DRIVE = ("O:S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464G:S-1-5-80-956008885-3418522649-"
              "1831038044-1853292631-2271478464D:PAI(A;OICI;FA;;;BA)(A;OICI;FA;;;SY)(A;OICIIO;GA;;;CO)"
              "(A;OICI;0x1200a9;;;BU)(A;CI;LC;;;AU)(A;OIIO;SDGXGWGR;;;AU)")


def test_programdata_as_shipped_lets_users_add_files():
    # A file with this access list could be written; as a folder above the site file it only lets Users
    # add files and folders, which cannot replace an existing site file: C:\ and ProgramData pass as folders.
    assert sddl_problem(PROGRAMDATA, "C:\\ProgramData") == "C:\\ProgramData can be written by Users (DCLCRPCR)"
    assert sddl_problem(PROGRAMDATA, folder=True) == "" and sddl_problem(ROOT_DRIVE, folder=True) == ""
    # A folder where Users may delete children (replace site.toml) does not pass.
    assert "Users (DT)" in sddl_problem("O:BAD:PAI(A;;FA;;;BA)(A;CI;DT;;;BU)", folder=True)


def test_callback_and_conditional_entries_are_read_whole():
    conditional = "O:BAD:PAI(A;;FA;;;BA)(XA;;FA;;;BA;(Member_of {SID(BA)}))(A;;FA;;;BU)"
    assert "Users (FA)" in sddl_problem(conditional)  # the entry after the conditional one is checked
    assert "Everyone (FA)" in sddl_problem("O:BAD:PAI(A;;FA;;;BA)(ZA;;FA;;;WD)")  # a callback allow grants
    assert sddl_problem("O:BAD:PAI(A;;FA;;;BA)(XD;;FA;;;WD;(Member_of {SID(BA)}))") == ""  # a deny does not


def test_a_folder_and_file_locked_by_the_installer_pass():
    assert sddl_problem(LOCKED) == ""
    inherited = "O:BAG:SYD:AI(A;ID;FA;;;SY)(A;ID;FA;;;BA)(A;ID;0x1200a9;;;BU)"
    assert sddl_problem(inherited) == ""
    trusted_installer = "O:S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464D:PAI(A;;FA;;;SY)"
    assert sddl_problem(trusted_installer) == ""


@pytest.mark.parametrize("sddl, needle", [
    ("O:S-1-5-21-1004336348-1177238915-682003330-1001G:S-1-5-21-1-2-3-513D:AI(A;ID;FA;;;SY)",
     "belongs to S-1-5-21-1004336348-1177238915-682003330-1001"),  # a user planted it: they own it
    ("O:BAD:PAI(A;;FA;;;SY)(A;;FA;;;WD)", "can be written by Everyone (FA)"),
    ("O:BAD:PAI(A;;FA;;;BA)(A;;0x2;;;AU)", "can be written by Authenticated Users (0x2)"),
    ("O:BAD:PAI(A;;FA;;;BA)(A;;WO;;;BU)", "can be written by Users (WO)"),  # may take ownership
    ("O:BAD:PAI(A;;FA;;;BA)(A;;WD;;;IU)", "Interactive users (WD)"),  # WRITE_DAC: may grant itself anything
    ("O:BAD:PAI(A;;FA;;;BA)(A;;SD;;;BU)", "Users (SD)"),  # may delete it and put another in its place
    ("O:BAD:NO_ACCESS_CONTROL", "no access list"),
    ("O:BA", "no access list"),
    ("G:SYD:PAI(A;;FA;;;BA)", "no owner"),
    ("O:BAD:PAI(A;;FA;BA)", "cannot be read"),
    ("O:BAD:PAI(A;;ZZ;;;BU)", "can be written by Users (ZZ)"),  # rights it cannot name count as all
])
def test_what_could_let_someone_else_write_is_named(sddl, needle):
    assert needle in sddl_problem(sddl)


def test_read_only_users_deny_entries_and_inherit_only_entries_are_no_problem():
    assert sddl_problem("O:BAD:PAI(A;;FA;;;BA)(A;;FR;;;BU)(A;;0x1200a9;;;AU)") == ""
    assert sddl_problem("O:BAD:PAI(A;;FA;;;BA)(D;;FA;;;BU)") == ""
    assert sddl_problem("O:BAD:PAI(A;;FA;;;BA)(A;OICIIO;GA;;;CO)") == ""  # only for what others create inside
    assert sddl_problem("O:BAD:P") == ""  # an empty list lets nobody in


def test_rights_masks():
    assert rights_mask("0x1200a9") == 0x1200A9
    assert rights_mask("DCLC") == 0x6
    assert rights_mask("FA") == 0x1F01FF
