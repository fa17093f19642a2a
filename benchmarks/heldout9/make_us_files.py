"""Builds the US company's Excel export and Word handbook of heldout9 with the standard library only.

Run:  .venv/bin/python benchmarks/heldout9/make_us_files.py

It writes us-cedar-valley-dental/Employee_Census_09-01-2027.xlsx (one sheet, a title line above the header, shared
strings, real Excel dates shown as MM/DD/YYYY, pay rates as #,##0.00) and
us-cedar-valley-dental/handbook/Employee_Handbook_2027.docx (headings, paragraphs and one table). The output is the
same on every run (fixed zip timestamps), so the committed files can be rebuilt and compared.
"""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
US = HERE / "us-cedar-valley-dental"
STAMP = (2027, 9, 1, 7, 30, 0)

TITLE = "Cedar Valley Dental Partners - Employee Census as of 09/01/2027"
HEADERS = ["Employee ID", "Employee Name", "Department", "Job Title", "Location", "Supervisor ID", "Hire Date",
           "Employment Status", "FT/PT", "Weekly Sched Hrs", "Pay Type", "Pay Rate", "PTO Balance (hrs)",
           "Sick Balance (hrs)", "Term Date"]
# id, name, department, title, location, supervisor, hired, status, FT/PT, hours, pay type, rate, PTO, sick, term date
ROWS = [
    (1001, "LINDQUIST, ERIC", "Administration", "Owner & Managing Dentist", "Waterloo", None, "06/01/2006", "Active", "Full-Time", 40, "Salary", 310000, 160, 40, None),
    (1004, "KOWALSKI, DIANE", "Human Resources", "HR Manager", "Waterloo", 1001, "03/15/2013", "Active", "Full-Time", 40, "Salary", 78500, 142.5, 32, None),
    (1027, "NGUYEN, TRACY", "Human Resources", "HR & Payroll Specialist", "Waterloo", 1004, "08/02/2021", "Active", "Full-Time", 40, "Hourly", 27.50, 58.25, 24, None),
    (1008, "OKAFOR, SAMUEL", "Clinical", "Associate Dentist", "Cedar Falls", 1001, "09/12/2016", "Active", "Full-Time", 40, "Salary", 215000, 120, 40, None),
    (1015, "HARTMANN, LISA", "Clinical", "Associate Dentist", "Waverly", 1001, "02/03/2020", "Active", "Part-Time", 32, "Salary", 176000, 64, 32, None),
    (1011, "BRANDT, KAREN", "Administration", "Operations Manager", "Waterloo", 1001, "05/20/2014", "Active", "Full-Time", 40, "Salary", 72000, 150, 40, None),
    (1019, "REYES, MARISOL", "Front Office", "Office Manager", "Waterloo", 1011, "10/07/2015", "Active", "Full-Time", 40, "Salary", 58240, 86.5, 40, None),
    (1034, "SCHMIDT, KAYLA", "Front Office", "Patient Coordinator", "Waterloo", 1019, "04/22/2019", "Active", "Full-Time", 40, "Hourly", 19.75, 71.5, 28, None),
    (1041, "JOHNSON, TYLER", "Front Office", "Scheduling Coordinator", "Cedar Falls", 1019, "01/09/2023", "Active", "Part-Time", 24, "Hourly", 18.50, 22.75, 16, None),
    (1039, "WAGNER, NICOLE", "Front Office", "Patient Coordinator", "Waverly", 1019, "03/01/2021", "Terminated", "Full-Time", 40, "Hourly", 19.25, 0, 0, "06/30/2027"),
    (1057, "HANSEN, BROOKE", "Front Office", "Patient Coordinator", "Waverly", 1019, "11/14/2022", "Active", "Full-Time", 40, "Hourly", 18.90, 40.5, 36, None),
    (1023, "BAKER, JOLENE", "Billing", "Billing Supervisor", "Waterloo", 1011, "07/11/2011", "Active", "Full-Time", 40, "Hourly", 26.40, 188, 40, None),
    (1046, "MOHAMED, HODAN", "Billing", "Insurance Coordinator", "Waterloo", 1023, "06/05/2018", "Active", "Full-Time", 40, "Hourly", 21.80, 64, 22.5, None),
    (1058, "O'BRIEN, MEGAN", "Billing", "Billing Specialist", "Waterloo", 1023, "02/17/2020", "Leave of Absence", "Full-Time", 40, "Hourly", 20.60, 12, 0, None),
    (1013, "PETERSEN, AMY", "Hygiene", "Lead Dental Hygienist", "Cedar Falls", 1001, "08/18/2010", "Active", "Full-Time", 40, "Hourly", 44.00, 176, 40, None),
    (1030, "VOGEL, CARRIE", "Hygiene", "Dental Hygienist", "Waterloo", 1013, "05/02/2017", "Active", "Full-Time", 40, "Hourly", 41.50, 98.5, 32, None),
    (1037, "DE JONG, BRITTANY", "Hygiene", "Dental Hygienist", "Waverly", 1013, "09/25/2018", "Active", "Part-Time", 32, "Hourly", 40.25, 77.25, 24, None),
    (1044, "TRAN, KEVIN", "Hygiene", "Dental Hygienist", "Cedar Falls", 1013, "03/09/2020", "Active", "Full-Time", 40, "Hourly", 42.00, 63.25, 40, None),
    (1055, "MILLER, JESSICA", "Hygiene", "Dental Hygienist", "Waterloo", 1013, "10/16/2023", "Active", "Part-Time", 24, "Hourly", 39.75, 30.5, 16, None),
    (1063, "HOLM, ASHLEY", "Hygiene", "Dental Hygienist", "Waverly", 1013, "07/19/2027", "Active", "Full-Time", 40, "Hourly", 38.50, 12, 16, None),
    (1069, "FISCHER, EMILY", "Hygiene", "Dental Hygienist", "Cedar Falls", 1013, "01/17/2022", "Active", "Full-Time", 40, "Hourly", 40.75, 54, 30, None),
    (1021, "SCHULTZ, BRENDA", "Clinical", "Lead Dental Assistant", "Waterloo", 1001, "11/03/2012", "Active", "Full-Time", 40, "Hourly", 24.80, 132, 40, None),
    (1048, "GARCIA, ALYSSA", "Clinical", "Dental Assistant", "Cedar Falls", 1021, "04/11/2022", "Active", "Full-Time", 40, "Hourly", 20.40, 49.5, 34, None),
    (1050, "THOMPSON, JORDAN", "Clinical", "Dental Assistant", "Waterloo", 1021, "08/29/2022", "Active", "Full-Time", 40, "Hourly", 19.90, 36, 40, None),
    (1060, "YANG, MAI", "Clinical", "Dental Assistant", "Waverly", 1021, "06/13/2024", "Active", "Full-Time", 40, "Hourly", 19.20, 44.75, 24, None),
    (1066, "BECKER, LOGAN", "Clinical", "Sterilization Technician", "Waterloo", 1021, "02/26/2025", "Active", "Part-Time", 30, "Hourly", 17.50, 18, 12, None),
]
DATE_COLS = {6, 14}
MONEY_COL = 11


def serial(mdy: str) -> int:
    m, d, y = (int(x) for x in mdy.split("/"))
    return (dt.date(y, m, d) - dt.date(1899, 12, 30)).days


def col(i: int) -> str:
    return chr(ord("A") + i)


def write_zip(path: Path, files: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
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

    # styles: 0 general, 1 date mm/dd/yyyy, 2 money #,##0.00, 3 bold header, 4 bold title
    def cell(ref: str, value, style: int = 0) -> str:
        s = f' s="{style}"' if style else ""
        if value is None or value == "":
            return ""
        if isinstance(value, str):
            return f'<c r="{ref}" t="s"{s}><v>{sst(value)}</v></c>'
        return f'<c r="{ref}"{s}><v>{value:.15g}</v></c>' if isinstance(value, float) else f'<c r="{ref}"{s}><v>{value}</v></c>'

    rows = [f'<row r="1">{cell("A1", TITLE, 4)}</row>',
            '<row r="2">' + "".join(cell(f"{col(i)}2", h, 3) for i, h in enumerate(HEADERS)) + "</row>"]
    for n, r in enumerate(ROWS, start=3):
        cells = []
        for i, v in enumerate(r):
            ref = f"{col(i)}{n}"
            if i in DATE_COLS and v:
                cells.append(cell(ref, serial(v), 1))
            elif i == MONEY_COL:
                cells.append(cell(ref, float(v), 2))
            else:
                cells.append(cell(ref, v))
        rows.append(f'<row r="{n}">' + "".join(cells) + "</row>")
    last = f"{col(len(HEADERS) - 1)}{len(ROWS) + 2}"
    widths = [11, 22, 16, 26, 12, 12, 11, 17, 10, 10, 9, 12, 11, 11, 11]
    sheet = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
             'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
             f'<dimension ref="A1:{last}"/>'
             '<sheetViews><sheetView workbookViewId="0"><pane ySplit="2" topLeftCell="A3" activePane="bottomLeft" '
             'state="frozen"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/><cols>'
             + "".join(f'<col min="{i + 1}" max="{i + 1}" width="{w}" customWidth="1"/>' for i, w in enumerate(widths))
             + "</cols><sheetData>" + "".join(rows) + "</sheetData>"
             '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>')
    shared = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{len(strings)}" '
              f'uniqueCount="{len(strings)}">' + "".join(f"<si><t>{escape(s)}</t></si>" for s in strings) + "</sst>")
    styles = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
              '<numFmts count="1"><numFmt numFmtId="164" formatCode="mm/dd/yyyy"/></numFmts>'
              '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>'
              '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>'
              '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
              '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
              '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
              '<cellXfs count="5"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
              '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
              '<xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
              '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>'
              '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>'
              '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>')
    workbook = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
                '<sheets><sheet name="Census" sheetId="1" r:id="rId1"/></sheets></workbook>')
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
    write_zip(US / "Employee_Census_09-01-2027.xlsx", files)


# ------------------------------------------------------------------ the Word handbook

H1, H2, P, TABLE = "Heading1", "Heading2", "", "table"
HANDBOOK = [
    ("Title", "Cedar Valley Dental Partners - Employee Handbook"),
    (P, "Effective January 1, 2027. This handbook applies to all employees of Cedar Valley Dental Partners, P.C. at "
        "our Waterloo, Cedar Falls and Waverly, Iowa clinics. It does not create a contract of employment; employment "
        "with Cedar Valley is at will."),
    (H1, "1. Introductory Period"),
    (P, "The first 90 calendar days of employment are an introductory period. The day you start work counts as day 1, "
        "so the introductory period ends at the close of day 90 (for example, an employee who starts on March 1 "
        "completes the introductory period at the end of May 29)."),
    (P, "During the introductory period you accrue PTO but may not use it. Paid holidays that fall during the "
        "introductory period are paid as described in Section 4. Your supervisor will meet with you before the end "
        "of the introductory period to review your progress."),
    (H1, "2. Workweek and Overtime"),
    (P, "The workweek begins at 12:00 a.m. Sunday and ends at 11:59 p.m. Saturday. Non-exempt (hourly) employees are "
        "paid overtime at one and one-half times their regular hourly rate for all hours worked over 40 in a "
        "workweek. Paid time off, holiday hours and sick leave are not hours worked and do not count toward the "
        "40 hours. All overtime must be approved in advance by your supervisor."),
    (P, "Salaried employees are exempt from overtime under the Fair Labor Standards Act and are not paid for hours "
        "over 40."),
    (H1, "3. Shift Differential"),
    (P, "Non-exempt employees receive a shift differential of $2.50 per hour for all hours worked after 6:00 p.m. "
        "Monday through Friday and for all hours worked on Saturdays. The differential is included in the regular "
        "rate when overtime is calculated."),
    (H1, "4. Paid Holidays"),
    (P, "Cedar Valley observes the paid holidays listed in the annual Holiday Schedule memo. Full-time employees "
        "receive 8 hours of holiday pay at their base hourly rate for each paid holiday. Part-time employees receive "
        "holiday pay for one-fifth of their scheduled weekly hours (for example, an employee scheduled for 20 hours "
        "a week receives 4 hours of holiday pay). Holiday pay is paid whether or not the holiday falls on one of "
        "your regularly scheduled workdays."),
    (P, "Non-exempt employees who are asked to work on a paid holiday are paid one and one-half times their regular "
        "rate for the hours worked, in addition to their holiday pay."),
    (H1, "5. Paid Time Off (PTO)"),
    (P, "PTO is used for vacation, personal business and any absence not covered by sick leave. Full-time employees "
        "accrue PTO each biweekly pay period according to their years of continuous service:"),
    (TABLE, [["Years of Service", "PTO Accrued per Pay Period", "Annual PTO (26 pay periods)"],
             ["Less than 2 years", "4.00 hours", "104 hours"],
             ["2 years but less than 5 years", "5.54 hours", "144 hours"],
             ["5 years but less than 10 years", "7.08 hours", "184 hours"],
             ["10 years or more", "8.62 hours", "224 hours"]]),
    (P, "Part-time employees accrue PTO in proportion to their scheduled weekly hours divided by 40. You move into a "
        "new tier starting with the first full pay period after your service anniversary."),
    (P, "Your PTO balance may not exceed one and one-half times your annual PTO; no further PTO accrues while you are "
        "at the cap."),
    (H2, "5.1 Requesting PTO"),
    (P, "Requests for PTO of five or more consecutive scheduled workdays must be submitted at least 30 days in "
        "advance; shorter requests must be submitted at least 7 days in advance. Requests are approved by your "
        "supervisor in the order they are received, taking patient schedules into account."),
    (H2, "5.2 PTO at Separation"),
    (P, "Employees who have completed the introductory period and who give the notice required in Section 8 are paid "
        "for their unused PTO balance at their base rate of pay in the final paycheck. For salaried employees, the "
        "base hourly rate is the annual salary divided by 2,080. Employees who do not give the required notice, or "
        "who are discharged for misconduct, forfeit unused PTO."),
    (H1, "6. Sick Leave"),
    (P, "Full-time employees receive 40 hours of sick leave on January 1 of each year; employees hired during the "
        "year receive a prorated amount. Part-time employees earn 1 hour of sick leave for every 40 hours worked. "
        "Unused sick leave carries over up to a balance of 80 hours and is not paid out at separation."),
    (H1, "7. Business Travel and Mileage"),
    (P, "Employees who use their personal vehicle for company business are reimbursed at the mileage rate stated in "
        "the current Expense Reimbursement memo. Submit a mileage log with your expense report by the 5th of the "
        "following month."),
    (H1, "8. Resignation and Notice"),
    (P, "Employees are asked to give at least two weeks' written notice of resignation. Managers, dentists and dental "
        "hygienists are asked to give at least four weeks' written notice. Notice is given to your supervisor, with "
        "a copy to Human Resources."),
    (H1, "9. Standards of Conduct"),
    (P, "Patient information is confidential under HIPAA. Do not discuss patients outside the clinic or access "
        "records you do not need for your work. Violations may lead to discipline up to and including termination."),
]

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def para(text: str, style: str = "") -> str:
    ppr = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f'<w:p>{ppr}<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'


def table(rows: list[list[str]]) -> str:
    grid = "".join('<w:gridCol w:w="3000"/>' for _ in rows[0])
    out = ['<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/>'
           '<w:tblBorders><w:top w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
           '<w:left w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
           '<w:bottom w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
           '<w:right w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
           '<w:insideH w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
           '<w:insideV w:val="single" w:sz="4" w:space="0" w:color="auto"/></w:tblBorders></w:tblPr>'
           f"<w:tblGrid>{grid}</w:tblGrid>"]
    for n, row in enumerate(rows):
        cells = "".join('<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr>'
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

    def style(sid: str, name: str, size: int, bold: bool) -> str:
        b = "<w:b/>" if bold else ""
        return (f'<w:style w:type="paragraph" w:styleId="{sid}"><w:name w:val="{name}"/><w:basedOn w:val="Normal"/>'
                f'<w:next w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/><w:spacing w:before="240" w:after="120"/>'
                f'<w:outlineLvl w:val="{0 if sid != "Heading2" else 1}"/></w:pPr>'
                f'<w:rPr>{b}<w:sz w:val="{size}"/></w:rPr></w:style>')

    styles = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              f'<w:styles xmlns:w="{W_NS}">'
              '<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/>'
              '</w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="160"/></w:pPr></w:pPrDefault></w:docDefaults>'
              '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>'
              + style("Title", "Title", 40, True) + style("Heading1", "heading 1", 32, True)
              + style("Heading2", "heading 2", 26, True)
              + '<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/></w:style></w:styles>')
    files = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
            '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
            '</Types>'),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
            '</Relationships>'),
        "word/document.xml": document,
        "word/_rels/document.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>'
            '</Relationships>'),
        "word/styles.xml": styles,
    }
    write_zip(US / "handbook" / "Employee_Handbook_2027.docx", files)


if __name__ == "__main__":
    build_xlsx()
    build_docx()
    print("wrote", US / "Employee_Census_09-01-2027.xlsx", "and", US / "handbook" / "Employee_Handbook_2027.docx")
