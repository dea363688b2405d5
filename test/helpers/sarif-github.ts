/**
 * GitHub code scanning's rules for an uploaded SARIF file, as the SARIF multitool checks them
 * (`validate --rule-kind Ghas`), ported from microsoft/sarif-sdk
 * src/Sarif.Multitool.Library/Rules @017851512e (GH1001/Base1016, GH1004, GH1005, GH1013-1018 via
 * their Base rules, GH2012): the multitool is a .NET program, so the test carries its checks.
 * Returns one line per violation (empty: GitHub takes the file whole).
 */
export function githubSarifProblems(log: any): string[] {
  const out: string[] = [];
  const bad = (where: string, why: string) => out.push(`${where}: ${why}`);
  // Base1013: version and runs; GH1004: at most 5 runs, 1000 rules and 1000 results per run, 10 locations per result.
  if (log.version !== '2.1.0') bad('/version', 'not 2.1.0');
  if (!Array.isArray(log.runs)) bad('/runs', 'missing');
  if ((log.runs ?? []).length > 5) bad('/runs', 'more than 5 runs');
  (log.runs ?? []).forEach((run: any, r: number) => {
    const at = `/runs/${r}`;
    // Base1014: a run has tool and results (upload-sarif refuses a run without the array).
    if (!run.tool?.driver) bad(`${at}/tool`, 'no driver');
    if (!Array.isArray(run.results)) bad(`${at}/results`, 'missing');
    // Base1018: the driver has a name; rules, when given, are objects with an id.
    if (!run.tool?.driver?.name) bad(`${at}/tool/driver`, 'no name');
    const rules: any[] = run.tool?.driver?.rules ?? [];
    if (rules.length > 1000) bad(`${at}/tool/driver/rules`, 'more than 1000 rules');
    rules.forEach((rule, i) => {
      const p = `${at}/tool/driver/rules/${i}`;
      // GH2012: shortDescription, fullDescription and help (with text) are required.
      if (!rule.id) bad(p, 'no id');
      if (!rule.shortDescription?.text?.trim()) bad(p, 'GH2012 no shortDescription');
      if (!rule.fullDescription?.text?.trim()) bad(p, 'GH2012 no fullDescription');
      if (!rule.help) bad(p, 'GH2012 no help');
      else if (!rule.help.text?.trim()) bad(`${p}/help`, 'GH2012 no help text');
    });
    const results: any[] = run.results ?? [];
    if (results.length > 1000) bad(`${at}/results`, 'more than 1000 results');
    results.forEach((res, i) => {
      const p = `${at}/results/${i}`;
      // Base1015: message text, a non-empty locations array, partialFingerprints.
      if (!res.message?.text?.trim()) bad(p, 'no message text');
      if (!Array.isArray(res.locations) || res.locations.length === 0) bad(p, 'no locations');
      if (!res.partialFingerprints) bad(p, 'no partialFingerprints');
      if ((res.locations ?? []).length > 10) bad(p, 'more than 10 locations');
      (res.locations ?? []).forEach((loc: any, j: number) => {
        const l = `${p}/locations/${j}`;
        // Base1016: a physicalLocation; Base1017: its artifactLocation and a region with a start.
        const phys = loc.physicalLocation;
        if (!phys) return bad(l, 'no physicalLocation');
        if (!phys.artifactLocation?.uri) bad(`${l}/physicalLocation`, 'no artifactLocation uri');
        if (!phys.region) bad(`${l}/physicalLocation`, 'no region');
        else if (
          phys.region.startLine === undefined &&
          phys.region.charOffset === undefined &&
          phys.region.byteOffset === undefined
        )
          bad(`${l}/physicalLocation/region`, 'no startLine, charOffset or byteOffset');
        // GH1005: a relative URI or a file: URI (GitHub shows no other).
        const uri: string = phys.artifactLocation?.uri ?? '';
        if (/^[a-z][a-z0-9+.-]*:/i.test(uri) && !uri.startsWith('file:'))
          bad(`${l}/physicalLocation/artifactLocation/uri`, 'GH1005 not a file path');
      });
    });
  });
  return out;
}
