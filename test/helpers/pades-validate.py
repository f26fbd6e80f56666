"""Validates every signature of a PDF with pyHanko, trusting only the given CA,
with fetching disabled; prints one JSON object per signature (a list).

With --ltv=pades-lt or --ltv=pades-lta, each signature is validated by
pyHanko's long-term validation of that PAdES profile instead: revocation
information required for every certificate (hard-fail), taken only from the
file's DSS (fetching disabled), the signer's certificate validated at the time
of its trusted timestamp; document timestamps are listed apart."""
import json
import sys

from pyhanko.keys import load_cert_from_pemder
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_ltv_signature, validate_pdf_signature, validate_pdf_timestamp
from pyhanko.sign.validation.dss import DocumentSecurityStore
from pyhanko.sign.validation.ltv import RevocationInfoValidationType
from pyhanko_certvalidator import ValidationContext


LTV = {'pades-lt': RevocationInfoValidationType.PADES_LT, 'pades-lta': RevocationInfoValidationType.PADES_LTA}


def main(pdf_path, ca_path, password=None, ltv=None):
    ca = load_cert_from_pemder(ca_path)
    results = []
    with open(pdf_path, 'rb') as f:
        reader = PdfFileReader(f)
        if password is not None:
            reader.decrypt(password)
        for sig in reader.embedded_signatures:
            if sig.sig_object.get('/Type') == '/DocTimeStamp':
                context = ValidationContext(trust_roots=[ca], allow_fetching=False, revocation_mode='soft-fail')
                ts = validate_pdf_timestamp(sig, validation_context=context)
                results.append({
                    'field': sig.field_name, 'docTimeStamp': True, 'intact': ts.intact, 'valid': ts.valid, 'trusted': ts.trusted,
                    'coverage': ts.coverage.name if ts.coverage else None,
                    'modificationLevel': ts.modification_level.name if ts.modification_level else None,
                    'subFilter': str(sig.sig_object.get('/SubFilter')), 'time': ts.timestamp.isoformat(), 'summary': ts.summary(),
                })
                continue
            if ltv is not None:
                kwargs = {'trust_roots': [ca], 'allow_fetching': False}
                # The first timestamp is trusted with what the file's DSS holds too: nothing comes from elsewhere.
                bootstrap = DocumentSecurityStore.read_dss(reader).as_validation_context(dict(kwargs))
                status = validate_pdf_ltv_signature(
                    sig, LTV[ltv], validation_context_kwargs=kwargs, bootstrap_validation_context=bootstrap, force_revinfo=True,
                )
            else:
                context = ValidationContext(trust_roots=[ca], allow_fetching=False, revocation_mode='soft-fail')
                ts_context = ValidationContext(trust_roots=[ca], allow_fetching=False, revocation_mode='soft-fail')
                status = validate_pdf_signature(sig, signer_validation_context=context, ts_validation_context=ts_context)
            ts = status.timestamp_validity
            docmdp = sig.docmdp_level
            results.append({
                'field': sig.field_name,
                'intact': status.intact,
                'valid': status.valid,
                'trusted': status.trusted,
                'bottomLine': status.bottom_line,
                'coverage': status.coverage.name if status.coverage else None,
                'modificationLevel': status.modification_level.name if status.modification_level else None,
                'docmdp': docmdp.name if docmdp else None,
                'subFilter': str(sig.sig_object.get('/SubFilter')),
                'signer': status.signing_cert.subject.human_friendly,
                'timestamp': None if ts is None else {
                    'intact': ts.intact, 'valid': ts.valid, 'trusted': ts.trusted, 'time': ts.timestamp.isoformat(),
                },
                'summary': status.summary(),
            })
    print(json.dumps(results))


if __name__ == '__main__':
    flags = [arg for arg in sys.argv[1:] if arg.startswith('--ltv=')]
    positional = [arg for arg in sys.argv[1:] if not arg.startswith('--ltv=')]
    main(*positional, ltv=flags[0][len('--ltv='):] if flags else None)
