"""Builds the Canadian company's Excel export and Word handbook of heldout11 with the standard library only.

Run:  .venv/bin/python benchmarks/heldout11/make_files.py     (or python3)

It writes ca-lakeshore-packaging/HR_Export_2027-11-01.xlsx (one sheet "Employees", the header on the first row, first
and last names in separate columns, shared strings, real Excel dates shown as yyyy-mm-dd, hourly rates as 0.00, annual
salaries as #,##0 and bi-weekly pay as #,##0.00) and ca-lakeshore-packaging/handbook/Employee_Handbook_Ontario_2027.docx
(a title, headings, paragraphs and two tables). The output is the same on every run (fixed zip timestamps and entry
order), so the committed files can be rebuilt and compared. The Portuguese and Swedish exports and handbooks are plain
text files committed as they are.
"""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
CA = HERE / "ca-lakeshore-packaging"
XLSX = CA / "HR_Export_2027-11-01.xlsx"
DOCX = CA / "handbook" / "Employee_Handbook_Ontario_2027.docx"
STAMP = (2027, 11, 1, 6, 45, 0)

HEADERS = ["Emp No", "Last Name", "First Name", "Department", "Position", "Location", "Reports To", "Hire Date",
           "Status", "Employment Type", "Std Hrs/Wk", "Pay Basis", "Hourly Rate", "Annual Salary", "Bi-Weekly Base Pay",
           "Vacation Bal (hrs)", "Personal Days Bal (hrs)", "Term Date"]
# emp no, last, first, department, position, location, reports to, hire date, status, type, hours, basis, hourly rate,
# annual salary, vacation balance, personal days balance, term date (the bi-weekly pay is computed)
ROWS = [
    (5001, "Whitfield", "Graham", "Executive", "President & CEO", "Mississauga", None, "2004-04-12", "Active", "Full-Time", 40, "Salaried", None, 245000, 168, 40, None),
    (5006, "Desrosiers", "Nathalie", "Human Resources", "HR Manager", "Mississauga", "Graham Whitfield", "2012-06-04", "Active", "Full-Time", 40, "Salaried", None, 98500, 122.5, 32, None),
    (5031, "Bains", "Harpreet", "Human Resources", "HR Generalist", "Mississauga", "Nathalie Desrosiers", "2019-09-16", "Active", "Full-Time", 40, "Salaried", None, 72800, 64, 40, None),
    (5058, "O'Connor", "Liam", "Human Resources", "Payroll & HR Coordinator", "Mississauga", "Nathalie Desrosiers", "2023-02-06", "Active", "Full-Time", 40, "Hourly", 29.75, None, 52.5, 24, None),
    (5010, "Kowalczyk", "Marek", "Production", "Plant Manager", "Mississauga", "Graham Whitfield", "2008-10-20", "Active", "Full-Time", 40, "Salaried", None, 118000, 140, 40, None),
    (5014, "Santos", "Ana", "Production", "Production Supervisor", "Mississauga", "Marek Kowalczyk", "2011-03-07", "Active", "Full-Time", 40, "Salaried", None, 76500, 96, 16, None),
    (5022, "Thompson", "Derek", "Production", "Press Operator", "Mississauga", "Ana Santos", "2015-08-24", "Active", "Full-Time", 40, "Hourly", 31.40, None, 118.5, 24, None),
    (5029, "Nguyen", "Bao", "Production", "Press Operator", "Mississauga", "Ana Santos", "2018-05-14", "Active", "Full-Time", 40, "Hourly", 30.10, None, 72, 32, None),
    (5037, "MacDonald", "Heather", "Production", "Press Operator", "Mississauga", "Ana Santos", "2020-11-02", "Leave - Parental", "Full-Time", 40, "Hourly", 28.90, None, 40, 40, None),
    (5044, "Ali", "Farhan", "Production", "Bindery Operator", "Mississauga", "Ana Santos", "2021-07-19", "Active", "Full-Time", 40, "Hourly", 25.60, None, 35.5, 8, None),
    (5062, "Bouchard", "Émilie", "Production", "Bindery Operator", "Mississauga", "Ana Santos", "2024-01-08", "Active", "Part-Time", 24, "Hourly", 23.80, None, 30, 14.4, None),
    (5068, "Patel", "Rohan", "Production", "General Labourer", "Mississauga", "Ana Santos", "2025-04-22", "Active", "Full-Time", 40, "Hourly", 21.50, None, 44, 24, None),
    (5071, "Greene", "Tyler", "Production", "General Labourer", "Mississauga", "Ana Santos", "2026-03-30", "Terminated", "Full-Time", 40, "Hourly", 21.00, None, 0, 0, "2027-07-16"),
    (5018, "Russo", "Paolo", "Production", "Production Supervisor", "Hamilton", "Marek Kowalczyk", "2013-01-14", "Active", "Full-Time", 40, "Salaried", None, 74000, 110, 24, None),
    (5025, "Chen", "Wei", "Production", "Press Operator", "Hamilton", "Paolo Russo", "2016-09-06", "Active", "Full-Time", 40, "Hourly", 30.80, None, 86.5, 40, None),
    (5040, "Clarke", "Jamal", "Production", "Press Operator", "Hamilton", "Paolo Russo", "2020-02-10", "Leave - Medical", "Full-Time", 40, "Hourly", 29.40, None, 56, 0, None),
    (5053, "Fraser", "Megan", "Production", "Bindery Operator", "Hamilton", "Paolo Russo", "2022-10-03", "Active", "Part-Time", 20, "Hourly", 24.10, None, 22.5, 12, None),
    (5066, "Singh", "Gurpreet", "Production", "General Labourer", "Hamilton", "Paolo Russo", "2025-01-13", "Active", "Full-Time", 40, "Hourly", 21.75, None, 47.5, 24, None),
    (5060, "Reid", "Owen", "Shipping & Receiving", "Shipper/Receiver", "Hamilton", "Paolo Russo", "2023-05-15", "Active", "Full-Time", 40, "Hourly", 23.40, None, 61, 16, None),
    (5020, "Lavoie", "Martin", "Maintenance", "Maintenance Lead", "Mississauga", "Marek Kowalczyk", "2014-05-26", "Active", "Full-Time", 40, "Hourly", 38.50, None, 104, 40, None),
    (5049, "Okoye", "Chidi", "Maintenance", "Millwright", "Mississauga", "Martin Lavoie", "2021-04-06", "Active", "Full-Time", 40, "Hourly", 36.20, None, 58.5, 32, None),
    (5064, "Ahmed", "Yasmin", "Prepress", "Prepress Technician", "Mississauga", "Marek Kowalczyk", "2024-09-09", "Active", "Full-Time", 40, "Hourly", 27.80, None, 39, 24, None),
    (5012, "Hughes", "Rebecca", "Sales", "Sales Manager", "Mississauga", "Graham Whitfield", "2010-09-13", "Active", "Full-Time", 40, "Salaried", None, 105000, 150, 40, None),
    (5034, "Ferreira", "Daniel", "Sales", "Account Executive", "Mississauga", "Rebecca Hughes", "2019-04-29", "Active", "Full-Time", 40, "Salaried", None, 68000, 91, 32, None),
    (5055, "Kim", "Jiyoon", "Sales", "Customer Service Representative", "Mississauga", "Rebecca Hughes", "2022-06-20", "Active", "Full-Time", 37.5, "Hourly", 24.50, None, 48, 30, None),
    (5016, "Morrison", "Karen", "Finance", "Controller", "Mississauga", "Graham Whitfield", "2012-11-19", "Active", "Full-Time", 40, "Salaried", None, 92000, 132, 40, None),
    (5047, "Dubois", "Sophie", "Finance", "Accounts Payable Clerk", "Mississauga", "Karen Morrison", "2021-08-30", "Active", "Part-Time", 30, "Hourly", 26.30, None, 45, 30, None),
]


def serial(iso: str) -> int:
    return (dt.date.fromisoformat(iso) - dt.date(1899, 12, 30)).days


def col(i: int) -> str:
    return chr(ord("A") + i)


def biweekly(r: tuple) -> float:
    """Hourly: rate x standard weekly hours x 2; salaried: annual salary / 26, to the cent."""
    rate, salary, hours = r[12], r[13], r[10]
    x = rate * hours * 2 if rate is not None else salary / 26
    return round(x + 1e-9, 2)


def write_zip(path: Path, files: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, text.encode("utf-8"))


# ------------------------------------------------------------------ the Excel export

def build_xlsx() -> None:
    strings: list[str] = []
    index: dict[str, int] = {}

    def sst(s: str) -> int:
        if s not in index:
            index[s] = len(strings)
            strings.append(s)
        return index[s]

    # styles: 0 general, 1 date yyyy-mm-dd, 2 rate 0.00, 3 salary #,##0, 4 pay #,##0.00, 5 bold header
    def cell(ref: str, value, style: int = 0) -> str:
        s = f' s="{style}"' if style else ""
        if value is None or value == "":
            return ""
        if isinstance(value, str):
            return f'<c r="{ref}" t="s"{s}><v>{sst(value)}</v></c>'
        if isinstance(value, float):
            return f'<c r="{ref}"{s}><v>{value:.15g}</v></c>'
        return f'<c r="{ref}"{s}><v>{value}</v></c>'

    rows = ['<row r="1">' + "".join(cell(f"{col(i)}1", h, 5) for i, h in enumerate(HEADERS)) + "</row>"]
    for n, r in enumerate(ROWS, start=2):
        values = list(r[:14]) + [biweekly(r)] + list(r[14:])
        cells = []
        for i, v in enumerate(values):
            ref = f"{col(i)}{n}"
            if i in (7, 17) and v:
                cells.append(cell(ref, serial(v), 1))
            elif i == 12 and v is not None:
                cells.append(cell(ref, float(v), 2))
            elif i == 13 and v is not None:
                cells.append(cell(ref, v, 3))
            elif i == 14:
                cells.append(cell(ref, float(v), 4))
            else:
                cells.append(cell(ref, v))
        rows.append(f'<row r="{n}">' + "".join(cells) + "</row>")
    last = f"{col(len(HEADERS) - 1)}{len(ROWS) + 1}"
    widths = [8, 13, 12, 20, 30, 13, 20, 11, 16, 15, 10, 10, 11, 13, 17, 16, 21, 11]
    sheet = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
             'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
             f'<dimension ref="A1:{last}"/>'
             '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" '
             'state="frozen"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/><cols>'
             + "".join(f'<col min="{i + 1}" max="{i + 1}" width="{w}" customWidth="1"/>' for i, w in enumerate(widths))
             + "</cols><sheetData>" + "".join(rows) + "</sheetData>"
             f'<autoFilter ref="A1:{last}"/>'
             '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>')
    shared = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{len(strings)}" '
              f'uniqueCount="{len(strings)}">' + "".join(f"<si><t>{escape(s)}</t></si>" for s in strings) + "</sst>")
    styles = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
              '<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/></numFmts>'
              '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>'
              '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>'
              '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
              '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
              '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
              '<cellXfs count="6"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
              '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
              '<xf numFmtId="2" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
              '<xf numFmtId="3" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
              '<xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
              '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>'
              '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>')
    workbook = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
                '<sheets><sheet name="Employees" sheetId="1" r:id="rId1"/></sheets>'
                '<definedNames><definedName name="_xlnm._FilterDatabase" localSheetId="0" hidden="1">'
                f'Employees!$A$1:${col(len(HEADERS) - 1)}${len(ROWS) + 1}</definedName></definedNames></workbook>')
    files = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
            '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
            '</Types>'),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
            '</Relationships>'),
        "xl/workbook.xml": workbook,
        "xl/_rels/workbook.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
            '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>'
            '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
            '</Relationships>'),
        "xl/worksheets/sheet1.xml": sheet,
        "xl/styles.xml": styles,
        "xl/sharedStrings.xml": shared,
    }
    write_zip(XLSX, files)


# ------------------------------------------------------------------ the Word handbook

H1, H2, P, TABLE = "Heading1", "Heading2", "", "table"
HANDBOOK = [
    ("Title", "Lakeshore Print & Packaging Inc. - Employee Handbook (Ontario)"),
    (P, "Effective January 1, 2027. This handbook applies to all employees of Lakeshore Print & Packaging Inc. at our "
        "Mississauga and Hamilton, Ontario facilities. Where the Ontario Employment Standards Act, 2000 (ESA) gives "
        "you a greater right or benefit, the ESA applies. Questions: Human Resources, hr@lakeshorepack.ca."),
    (H1, "1. Probationary Period"),
    (P, "New employees serve a probationary period of three months from their first day of work. Your supervisor will "
        "review your performance before the end of the probationary period."),
    (H1, "2. Hours of Work and Overtime"),
    (P, "The standard work week is 40 hours, Monday to Friday. Production and shipping run two shifts: day shift "
        "7:00 a.m. to 3:30 p.m. and afternoon shift 3:30 p.m. to 12:00 a.m., with a paid 30-minute break per shift; "
        "a night shift is scheduled when order volumes require it."),
    (P, "Hourly employees are paid overtime at one and one-half times their regular hourly rate for each hour worked "
        "in excess of 44 hours in a work week, as under the ESA. Hours between 40 and 44 are paid at the regular "
        "rate. Vacation, public holidays and personal days are not hours worked. Overtime must be approved in advance "
        "by your supervisor. Salaried supervisors and managers are not eligible for overtime pay."),
    (H2, "2.1 Shift Premiums"),
    (TABLE, [["Shift", "Hours", "Premium per hour worked"],
             ["Afternoon shift", "3:30 p.m. to 12:00 a.m.", "$1.25"],
             ["Night shift", "12:00 a.m. to 8:00 a.m.", "$1.75"]]),
    (P, "Shift premiums are paid to hourly employees for hours actually worked on the shift and are not included in "
        "vacation pay or holiday pay."),
    (H1, "3. Pay"),
    (P, "Employees are paid bi-weekly, every second Friday, by direct deposit, for a total of 26 pay periods in a "
        "year. Pay statements are available in the payroll portal. For salaried employees, the hourly equivalent of "
        "the annual salary is the annual salary divided by 2,080."),
    (H1, "4. Public Holidays"),
    (P, "Lakeshore observes the nine Ontario public holidays (New Year's Day, Family Day, Good Friday, Victoria Day, "
        "Canada Day, Labour Day, Thanksgiving Day, Christmas Day and Boxing Day) and the Civic Holiday in August."),
    (P, "Public holiday pay is equal to the total amount of regular wages earned and vacation pay payable in the four "
        "work weeks before the work week in which the public holiday falls, divided by 20. This applies to full-time "
        "and part-time employees. Employees who work on a public holiday are paid one and one-half times their "
        "regular rate for the hours worked, in addition to public holiday pay."),
    (H1, "5. Vacation"),
    (P, "Vacation entitlement is based on your years of continuous service on January 1 of the vacation year. One "
        "week of vacation equals your standard weekly hours; the hours below are for a 40-hour week."),
    (TABLE, [["Years of Service", "Vacation Weeks", "Vacation Hours (40-hour week)", "Vacation Pay (% of wages)"],
             ["Less than 5 years", "2 weeks", "80 hours", "4%"],
             ["5 years but less than 10 years", "3 weeks", "120 hours", "6%"],
             ["10 years but less than 20 years", "4 weeks", "160 hours", "8%"],
             ["20 years or more", "5 weeks", "200 hours", "10%"]]),
    (P, "Part-time employees receive the same number of weeks; their vacation hours are the weeks multiplied by their "
        "standard weekly hours. Employees hired during the year receive a prorated entitlement in their first year."),
    (P, "Up to 40 hours of unused vacation may be carried into the next year with your supervisor's approval; unused "
        "hours above 40 are paid out on the first pay in February. When employment ends, unused vacation hours are "
        "paid out at your regular hourly rate (for salaried employees, the annual salary divided by 2,080)."),
    (H1, "6. Personal Days"),
    (P, "Full-time employees receive 40 hours (five days) of paid personal days each calendar year, to be used for "
        "personal illness, injury or medical emergency, or for family responsibilities. Part-time employees receive "
        "hours in proportion to their standard weekly hours divided by 40. Unused personal days are not carried over "
        "and are not paid out. These days include the sick leave and family responsibility leave under the ESA."),
    (H1, "7. Bereavement Leave"),
    (P, "Employees receive up to three paid days of bereavement leave on the death of a spouse, child, parent, "
        "step-parent or sibling, and one paid day on the death of a grandparent, grandchild, parent-in-law or "
        "sibling-in-law. In addition, employees may take the unpaid bereavement leave available under the ESA (up to "
        "two days per calendar year)."),
    (H1, "8. Group RRSP"),
    (P, "After one year of continuous service, employees may join the group RRSP. Lakeshore matches 50% of your "
        "contributions, up to a contribution of 4% of your base pay. Contributions and the company match are made "
        "through payroll each pay period."),
    (H1, "9. Safety Footwear Allowance"),
    (P, "Employees in Production, Maintenance and Shipping & Receiving receive a safety footwear allowance of up to "
        "$200 per calendar year for CSA-approved safety boots, reimbursed against a receipt. Safety glasses and hearing "
        "protection are provided free of charge."),
    (H1, "10. Mileage"),
    (P, "Employees who use their own vehicle for company business, other than commuting, are reimbursed at $0.68 per "
        "kilometre. Submit the mileage log with your expense report within 30 days."),
    (H1, "11. Resignation"),
    (P, "Employees are asked to give at least two weeks' written notice of resignation. Supervisors, managers and "
        "employees with direct reports are asked to give at least four weeks' written notice."),
    (H1, "12. Respect in the Workplace"),
    (P, "Lakeshore does not tolerate workplace harassment or violence. Report concerns to your supervisor or to Human "
        "Resources; reports are investigated promptly and confidentially."),
]

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def para(text: str, style: str = "") -> str:
    ppr = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f'<w:p>{ppr}<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'


def table(rows: list[list[str]]) -> str:
    width = 9360 // len(rows[0])
    grid = "".join(f'<w:gridCol w:w="{width}"/>' for _ in rows[0])
    out = ['<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/>'
           '<w:tblBorders><w:top w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
           '<w:left w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
           '<w:bottom w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
           '<w:right w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
           '<w:insideH w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
           '<w:insideV w:val="single" w:sz="4" w:space="0" w:color="auto"/></w:tblBorders></w:tblPr>'
           f"<w:tblGrid>{grid}</w:tblGrid>"]
    for n, row in enumerate(rows):
        cells = "".join(f'<w:tc><w:tcPr><w:tcW w:w="{width}" w:type="dxa"/></w:tcPr>'
                        + (f'<w:p><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">{escape(c)}</w:t></w:r></w:p>'
                           if n == 0 else para(c)) + "</w:tc>" for c in row)
        out.append(f"<w:tr>{cells}</w:tr>")
    return "".join(out) + "</w:tbl>"


def build_docx() -> None:
    body = "".join(table(x) if kind == TABLE else para(x, kind) for kind, x in HANDBOOK)
    document = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                f'<w:document xmlns:w="{W_NS}"><w:body>{body}'
                '<w:sectPr><w:pgSz w:w="12240" w:h="15840"/>'
                '<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/>'
                "</w:sectPr></w:body></w:document>")

    def style(sid: str, name: str, size: int) -> str:
        return (f'<w:style w:type="paragraph" w:styleId="{sid}"><w:name w:val="{name}"/><w:basedOn w:val="Normal"/>'
                f'<w:next w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/><w:spacing w:before="240" w:after="120"/>'
                f'<w:outlineLvl w:val="{1 if sid == "Heading2" else 0}"/></w:pPr>'
                f'<w:rPr><w:b/><w:sz w:val="{size}"/></w:rPr></w:style>')

    styles = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              f'<w:styles xmlns:w="{W_NS}">'
              '<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/>'
              '</w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="160"/></w:pPr></w:pPrDefault></w:docDefaults>'
              '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>'
              + style("Title", "Title", 40) + style("Heading1", "heading 1", 32) + style("Heading2", "heading 2", 26)
              + '<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/></w:style></w:styles>')
    core = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
            'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
            '<dc:title>Employee Handbook (Ontario) 2027</dc:title><dc:creator>Human Resources</dc:creator>'
            '<dcterms:created xsi:type="dcterms:W3CDTF">2027-01-04T09:00:00Z</dcterms:created>'
            '</cp:coreProperties>')
    files = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
            '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
            '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
            '</Types>'),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
            '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>'
            '</Relationships>'),
        "docProps/core.xml": core,
        "word/document.xml": document,
        "word/_rels/document.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>'
            '</Relationships>'),
        "word/styles.xml": styles,
    }
    write_zip(DOCX, files)


if __name__ == "__main__":
    build_xlsx()
    build_docx()
    print("wrote", XLSX.relative_to(HERE), "and", DOCX.relative_to(HERE))
